// The server TLS stream (daemon/net/tls_stream.h) against a real TLS client
// (Beast's ssl_stream over OpenSSL) on loopback, with the test PKI.

#include "daemon/net/tls_stream.h"

#include <gtest/gtest.h>

#include <array>
#include <boost/asio/ssl.hpp>
#include <boost/beast/ssl.hpp>
#include <string>

#include "tests/support/temp_dir.h"
#include "tests/support/test_pki.h"

namespace sumcache::daemon {
namespace {

using sumcache::testing::make_test_pki;
using sumcache::testing::TempDir;
using sumcache::testing::TestPki;
using Client = beast::ssl_stream<beast::tcp_stream>;

std::string pattern(std::size_t size, char seed) {
  std::string s(size, '\0');
  for (std::size_t i = 0; i < size; ++i) s[i] = static_cast<char>(seed + i % 251);
  return s;
}

class TlsStreamTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pki_ = make_test_pki(dir_.path());
    server_context_.use_certificate_chain_file(pki_.server_cert.string());
    server_context_.use_private_key_file(pki_.server_key.string(), asio::ssl::context::pem);
    client_context_.load_verify_file(pki_.ca_cert.string());
    client_context_.set_verify_mode(asio::ssl::verify_peer);
    acceptor_.open(tcp::v4());
    acceptor_.bind({asio::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen();
  }

  // Runs the server and client sides until both end (at most 20 s).
  void run(std::function<awaitable<void>(TlsStream&)> server,
           std::function<awaitable<void>(Client&)> client) {
    asio::co_spawn(
        io_,
        [this, server]() -> awaitable<void> {
          auto socket = co_await acceptor_.async_accept(asio::use_awaitable);
          TlsStream stream(std::move(socket), server_context_);
          stream.next_layer().expires_after(std::chrono::seconds(10));
          co_await server(stream);
          server_done_ = true;
        },
        asio::detached);
    asio::co_spawn(
        io_,
        [this, client]() -> awaitable<void> {
          Client stream(io_, client_context_);
          co_await beast::get_lowest_layer(stream).async_connect(acceptor_.local_endpoint(),
                                                                 asio::use_awaitable);
          beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(10));
          co_await client(stream);
          client_done_ = true;
        },
        asio::detached);
    io_.run_for(std::chrono::seconds(20));
    EXPECT_TRUE(server_done_);
    EXPECT_TRUE(client_done_);
  }

  static awaitable<void> client_handshake(Client& c) {
    auto [ec] = co_await c.async_handshake(asio::ssl::stream_base::client, use_nothrow);
    EXPECT_FALSE(ec) << ec.message();
  }

  static awaitable<void> server_handshake(TlsStream& s) {
    auto [ec] = co_await s.async_handshake(use_nothrow);
    EXPECT_FALSE(ec) << ec.message();
  }

  TempDir dir_;
  TestPki pki_;
  asio::io_context io_;
  asio::ssl::context server_context_{asio::ssl::context::tls_server};
  asio::ssl::context client_context_{asio::ssl::context::tls_client};
  tcp::acceptor acceptor_{io_};
  bool server_done_ = false;
  bool client_done_ = false;
};

TEST_F(TlsStreamTest, AMebibyteGoesOutWhileTheClientsBytesComeIn) {
  const std::string down = pattern(1 << 20, 'a');
  const std::string up = pattern(256 * 1024, 'k');
  std::string got_up(up.size(), '\0');
  std::string got_down(down.size(), '\0');
  std::size_t first_write = 0;
  run(
      [&](TlsStream& s) -> awaitable<void> {
        co_await server_handshake(s);
        auto [ec1, n1] = co_await s.async_write_some(asio::buffer(down), use_nothrow);
        first_write = n1;
        // The rest written while the client's bytes are read: a read and a write in flight at once.
        using namespace asio::experimental::awaitable_operators;
        auto [wec, wn, read] = co_await (
            asio::async_write(s, asio::buffer(down.data() + n1, down.size() - n1), use_nothrow) &&
            asio::async_read(s, asio::buffer(got_up), use_nothrow));
        EXPECT_FALSE(wec) << wec.message();
        EXPECT_FALSE(std::get<0>(read)) << std::get<0>(read).message();
      },
      [&](Client& c) -> awaitable<void> {
        co_await client_handshake(c);
        using namespace asio::experimental::awaitable_operators;
        auto [wec, wn, read] = co_await (asio::async_write(c, asio::buffer(up), use_nothrow) &&
                                         asio::async_read(c, asio::buffer(got_down), use_nothrow));
        EXPECT_FALSE(wec) << wec.message();
        EXPECT_FALSE(std::get<0>(read)) << std::get<0>(read).message();
      });
  EXPECT_EQ(first_write, TlsStream::kMaxWritePlain);
  EXPECT_TRUE(got_down == down);
  EXPECT_TRUE(got_up == up);
}

TEST_F(TlsStreamTest, SmallPiecesOfOneWriteShareARecord) {
  // TLS 1.2 with AES-128-GCM: each record is its plaintext plus 29 bytes (a
  // 5-byte header, an 8-byte explicit nonce, a 16-byte tag).
  SSL_CTX_set_max_proto_version(client_context_.native_handle(), TLS1_2_VERSION);
  SSL_CTX_set_cipher_list(client_context_.native_handle(), "ECDHE-ECDSA-AES128-GCM-SHA256");
  const std::string a(100, 'a'), b(100, 'b'), c(100, 'c');
  std::size_t raw = 0;
  run(
      [&](TlsStream& s) -> awaitable<void> {
        co_await server_handshake(s);
        const std::array<asio::const_buffer, 3> pieces{asio::buffer(a), asio::buffer(b),
                                                       asio::buffer(c)};
        auto [ec, n] = co_await s.async_write_some(pieces, use_nothrow);
        EXPECT_FALSE(ec);
        EXPECT_EQ(n, 300U);
        co_await s.next_layer().async_read_some(asio::buffer(&raw, 1), use_nothrow);  // until the client closes
      },
      [&](Client& client) -> awaitable<void> {
        co_await client_handshake(client);
        std::array<char, 1024> bytes;
        auto& tcp_layer = beast::get_lowest_layer(client);
        while (raw < 329) {
          auto [ec, n] = co_await tcp_layer.async_read_some(asio::buffer(bytes), use_nothrow);
          if (ec) break;
          raw += n;
        }
        tcp_layer.close();
      });
  EXPECT_EQ(raw, 329U);  // one record; three would be 387 bytes
}

TEST_F(TlsStreamTest, AKeyUpdateAskedForDuringAReadGoesOutWithTheNextWrite) {
  std::string got(5, '\0');
  run(
      [&](TlsStream& s) -> awaitable<void> {
        co_await server_handshake(s);
        std::array<char, 5> in;
        auto [ec, n] = co_await asio::async_read(s, asio::buffer(in), use_nothrow);
        EXPECT_FALSE(ec) << ec.message();
        // OpenSSL answered the KeyUpdate while reading: that answer, then
        // this record under the new keys.
        auto [wec, wn] = co_await asio::async_write(s, asio::buffer(std::string("world")), use_nothrow);
        EXPECT_FALSE(wec) << wec.message();
        auto [ec2, n2] = co_await asio::async_read(s, asio::buffer(in), use_nothrow);
        EXPECT_FALSE(ec2) << ec2.message();
        EXPECT_EQ(std::string(in.data(), 5), "again");
      },
      [&](Client& c) -> awaitable<void> {
        co_await client_handshake(c);
        EXPECT_EQ(SSL_key_update(c.native_handle(), SSL_KEY_UPDATE_REQUESTED), 1);
        co_await asio::async_write(c, asio::buffer(std::string("hello")), use_nothrow);
        auto [ec, n] = co_await asio::async_read(c, asio::buffer(got), use_nothrow);
        EXPECT_FALSE(ec) << ec.message();
        co_await asio::async_write(c, asio::buffer(std::string("again")), use_nothrow);
      });
  EXPECT_EQ(got, "world");
}

TEST_F(TlsStreamTest, CloseNotifyReadsAsEofAndACutConnectionAsTruncated) {
  for (const bool notify : {true, false}) {
    error_code read_error;
    run(
        [&](TlsStream& s) -> awaitable<void> {
          co_await server_handshake(s);
          std::array<char, 64> in;
          auto [ec, n] = co_await s.async_read_some(asio::buffer(in), use_nothrow);
          read_error = ec;
        },
        [&](Client& c) -> awaitable<void> {
          co_await client_handshake(c);
          if (notify) {
            // Asio's client waits for our close_notify in return: the read above ended the server.
            beast::get_lowest_layer(c).expires_after(std::chrono::milliseconds(500));
            co_await c.async_shutdown(use_nothrow);
          } else {
            beast::get_lowest_layer(c).close();
          }
        });
    if (notify) {
      EXPECT_EQ(read_error, asio::error::eof) << read_error.message();
    } else {
      EXPECT_EQ(read_error, asio::ssl::error::stream_truncated) << read_error.message();
    }
    io_.restart();
    server_done_ = client_done_ = false;
  }
}

TEST_F(TlsStreamTest, ShutdownSendsCloseNotifyAndWaitsForTheClients) {
  error_code shutdown_error = asio::error::would_block;
  error_code client_read = asio::error::would_block;
  run(
      [&](TlsStream& s) -> awaitable<void> {
        co_await server_handshake(s);
        auto [ec] = co_await s.async_shutdown(use_nothrow);
        shutdown_error = ec;
      },
      [&](Client& c) -> awaitable<void> {
        co_await client_handshake(c);
        std::array<char, 16> in;
        auto [ec, n] = co_await c.async_read_some(asio::buffer(in), use_nothrow);
        client_read = ec;
        co_await c.async_shutdown(use_nothrow);
      });
  EXPECT_EQ(client_read, asio::error::eof) << client_read.message();
  EXPECT_FALSE(shutdown_error) << shutdown_error.message();
}

TEST_F(TlsStreamTest, AHandshakeThatFailsSaysWhyAndSendsTheAlert) {
  error_code handshake_error;
  error_code client_error;
  // A client offering only TLS 1.2 suites the server's RSA-less P-256 key cannot sign for.
  SSL_CTX_set_max_proto_version(client_context_.native_handle(), TLS1_2_VERSION);
  SSL_CTX_set_cipher_list(client_context_.native_handle(), "ECDHE-RSA-AES128-GCM-SHA256");
  run(
      [&](TlsStream& s) -> awaitable<void> {
        auto [ec] = co_await s.async_handshake(use_nothrow);
        handshake_error = ec;
      },
      [&](Client& c) -> awaitable<void> {
        auto [ec] = co_await c.async_handshake(asio::ssl::stream_base::client, use_nothrow);
        client_error = ec;
      });
  EXPECT_EQ(handshake_error.category(), asio::error::get_ssl_category());
  EXPECT_NE(handshake_error.message().find("no shared cipher"), std::string::npos)
      << handshake_error.message();
  // The client heard why: the alert went out before the handshake ended.
  EXPECT_NE(client_error.message().find("alert handshake failure"), std::string::npos)
      << client_error.message();
}

}  // namespace
}  // namespace sumcache::daemon
