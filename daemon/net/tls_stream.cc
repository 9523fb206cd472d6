#include "daemon/net/tls_stream.h"

#include <openssl/err.h>

#include <algorithm>
#include <cstring>

namespace sumcache::daemon {
namespace {

// A TLS record's most plaintext (RFC 8446 §5.1).
constexpr std::size_t kRecordPlain = 16 * 1024;
// What one socket read takes. OpenSSL takes all of it before it asks for
// more (a partial record waits in its own buffer), so a record's size is enough.
constexpr std::size_t kReadBuffer = 16 * 1024;
// What sealing adds to a record at most (header, TLS 1.2's explicit nonce, tag, padding).
constexpr std::size_t kRecordOverhead = 64;

// The BIO OpenSSL reads from and writes to: the State's buffers.
struct BioState {
  const std::unique_ptr<char[]>* in;
  std::size_t* in_begin;
  std::size_t* in_end;
  bool* in_eof;
  std::string* out;
};

int bio_write(BIO* bio, const char* data, int size) {
  auto* state = static_cast<BioState*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  state->out->append(data, static_cast<std::size_t>(size));
  return size;
}

int bio_read(BIO* bio, char* data, int size) {
  auto* state = static_cast<BioState*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  const std::size_t available = *state->in_end - *state->in_begin;
  if (available == 0) {
    if (*state->in_eof) return 0;
    BIO_set_retry_read(bio);
    return -1;
  }
  const std::size_t n = std::min(available, static_cast<std::size_t>(size));
  std::memcpy(data, state->in->get() + *state->in_begin, n);
  *state->in_begin += n;
  return static_cast<int>(n);
}

long bio_ctrl(BIO* bio, int command, long, void*) {
  switch (command) {
    case BIO_CTRL_FLUSH:
      return 1;  // written is as good as sent: the next socket write takes it
    case BIO_CTRL_EOF: {
      auto* state = static_cast<BioState*>(BIO_get_data(bio));
      return *state->in_eof && *state->in_end == *state->in_begin ? 1 : 0;
    }
    default:
      return 0;
  }
}

int bio_create(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

int bio_destroy(BIO* bio) {
  delete static_cast<BioState*>(BIO_get_data(bio));
  BIO_set_data(bio, nullptr);
  return 1;
}

const BIO_METHOD* buffer_bio_method() {
  static const BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "sumcache buffers");
    BIO_meth_set_write(m, bio_write);
    BIO_meth_set_read(m, bio_read);
    BIO_meth_set_ctrl(m, bio_ctrl);
    BIO_meth_set_create(m, bio_create);
    BIO_meth_set_destroy(m, bio_destroy);
    return m;
  }();
  return method;
}

}  // namespace

TlsStream::TlsStream(tcp::socket socket, asio::ssl::context& context)
    : state_(std::make_unique<State>(std::move(socket), context)) {}

TlsStream::State::State(tcp::socket tcp_socket, asio::ssl::context& context)
    : socket(std::move(tcp_socket)), ssl(SSL_new(context.native_handle())),
      in(new char[kReadBuffer]) {
  if (!ssl) throw std::bad_alloc();
  BIO* bio = BIO_new(buffer_bio_method());
  if (bio == nullptr) throw std::bad_alloc();
  BIO_set_data(bio, new BioState{&in, &in_begin, &in_end, &in_eof, &out});
  SSL_set_bio(ssl.get(), bio, bio);  // one BIO both ways: SSL_free frees it once
  SSL_set_accept_state(ssl.get());
}

void TlsStream::State::seal_piece(const char* data, std::size_t size, std::size_t& taken,
                                  error_code& ec) {
  while (size > 0 && !ec) {
    if (!staging.empty() || size < kRecordPlain) {
      // A piece smaller than a record shares one with its neighbours.
      const std::size_t n = std::min(size, kRecordPlain - staging.size());
      staging.append(data, n);
      data += n;
      size -= n;
      taken += n;
      if (staging.size() == kRecordPlain) {
        seal_now(staging.data(), staging.size(), ec);
        staging.clear();
      }
      continue;
    }
    // Whole records straight from the caller's bytes; the rest is staged.
    const std::size_t n = size - size % kRecordPlain;
    seal_now(data, n, ec);
    data += n;
    size -= n;
    taken += n;
  }
}

void TlsStream::State::seal_now(const char* data, std::size_t size, error_code& ec) {
  ERR_clear_error();
  std::size_t written = 0;
  const int result = SSL_write_ex(ssl.get(), data, size, &written);
  if (result != 1) ec = failure(result);
}

asio::mutable_buffer TlsStream::State::read_room() {
  if (in_begin == in_end) in_begin = in_end = 0;
  if (in_end == kReadBuffer && in_begin > 0) {
    std::memmove(in.get(), in.get() + in_begin, in_end - in_begin);
    in_end -= in_begin;
    in_begin = 0;
  }
  return asio::buffer(in.get() + in_end, kReadBuffer - in_end);
}

bool TlsStream::State::took(const error_code& ec, std::size_t got) {
  if (ec == asio::error::eof) {
    in_eof = true;
  } else if (ec) {
    return false;
  }
  in_end += got;
  return true;
}

void TlsStream::State::reserve_output(std::size_t plain) {
  out.reserve(out.size() + plain + (plain / kRecordPlain + 2) * kRecordOverhead);
}

void TlsStream::State::sent() {
  if (sending.capacity() > kRecordPlain + kRecordOverhead) {
    std::string().swap(sending);
  } else {
    sending.clear();
  }
}

asio::const_buffer TlsStream::State::take_output() {
  sending.swap(out);
  out.clear();
  return asio::buffer(sending);
}

error_code TlsStream::State::failure(int result) {
  switch (SSL_get_error(ssl.get(), result)) {
    case SSL_ERROR_ZERO_RETURN:
      return asio::error::eof;  // the client's close_notify
    case SSL_ERROR_WANT_READ:
      return asio::ssl::error::stream_truncated;  // the TCP end came first
    case SSL_ERROR_SSL: {
      const unsigned long code = ERR_get_error();
      if (ERR_GET_REASON(code) == SSL_R_UNEXPECTED_EOF_WHILE_READING) {
        return asio::ssl::error::stream_truncated;
      }
      return error_code(static_cast<int>(code), asio::error::get_ssl_category());
    }
    default:
      return asio::ssl::error::stream_truncated;
  }
}

}  // namespace sumcache::daemon
