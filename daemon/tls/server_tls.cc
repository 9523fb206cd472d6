#include "daemon/tls/server_tls.h"

#include <openssl/err.h>
#include <openssl/ocsp.h>
#include <openssl/ssl.h>

#include <cstring>
#include <fstream>
#include <iterator>

#include "daemon/tls/sni_match.h"

namespace sumcache::daemon {

namespace {

namespace ssl = boost::asio::ssl;

// An OCSP response is a few KiB; a larger file is not one.
constexpr std::size_t kMaxOcspBytes = 64 * 1024;
constexpr unsigned char kSessionContext[] = "sumcache";

std::string openssl_reason() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "rejected by OpenSSL";
  char text[256];
  ERR_error_string_n(e, text, sizeof text);
  return text;
}

// The protocol the client offers that this listener prefers: h2 where HTTP/2
// is on (`arg` non-null), else http/1.1. A client offering neither gets no
// ALPN answer and may still speak HTTP/1.1 (RFC 7301 §3.2).
int select_alpn(SSL*, const unsigned char** out, unsigned char* out_size, const unsigned char* in,
                unsigned in_size, void* arg) {
  static constexpr std::string_view kH2 = "h2";
  static constexpr std::string_view kHttp11 = "http/1.1";
  const unsigned char* http11 = nullptr;
  for (unsigned at = 0; at < in_size;) {
    const unsigned size = in[at];
    if (at + 1 + size > in_size) break;
    const std::string_view name(reinterpret_cast<const char*>(in + at + 1), size);
    if (arg != nullptr && name == kH2) {
      *out = in + at + 1;
      *out_size = static_cast<unsigned char>(size);
      return SSL_TLSEXT_ERR_OK;
    }
    if (name == kHttp11) http11 = in + at + 1;
    at += 1 + size;
  }
  if (http11 == nullptr) return SSL_TLSEXT_ERR_NOACK;
  *out = http11;
  *out_size = static_cast<unsigned char>(kHttp11.size());
  return SSL_TLSEXT_ERR_OK;
}

int staple_ocsp(SSL* ssl, void* arg) {
  const auto* response = static_cast<const std::string*>(arg);
  if (response == nullptr || response->empty()) return SSL_TLSEXT_ERR_NOACK;
  auto* copy = static_cast<unsigned char*>(OPENSSL_malloc(response->size()));
  if (copy == nullptr) return SSL_TLSEXT_ERR_NOACK;
  std::memcpy(copy, response->data(), response->size());
  SSL_set_tlsext_status_ocsp_resp(ssl, copy, static_cast<long>(response->size()));
  return SSL_TLSEXT_ERR_OK;
}

bool read_ocsp(const std::filesystem::path& file, std::string& out, std::string& failed) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return failed = "cannot open", false;
  out.assign(kMaxOcspBytes + 1, '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<std::size_t>(in.gcount()));
  if (out.size() > kMaxOcspBytes) return failed = "larger than 64 KiB", false;
  const auto* p = reinterpret_cast<const unsigned char*>(out.data());
  OCSP_RESPONSE* parsed = d2i_OCSP_RESPONSE(nullptr, &p, static_cast<long>(out.size()));
  if (parsed == nullptr || p != reinterpret_cast<const unsigned char*>(out.data()) + out.size()) {
    OCSP_RESPONSE_free(parsed);
    return failed = "not one DER OCSP response", false;
  }
  OCSP_RESPONSE_free(parsed);
  return true;
}

// The rules every context of the listener shares; false with `failed` set.
// select_alpn's argument where h2 is offered; null where it is not.
char kOfferH2;

bool apply_rules(SSL_CTX* ctx, const config::ServerTlsConfig& c, bool http2, std::string& failed) {
  SSL_CTX_set_min_proto_version(
      ctx, c.min_version == config::TlsVersion::tls1_3 ? TLS1_3_VERSION : TLS1_2_VERSION);
  // No tickets: sessions resume from the server's cache, whose keys never
  // leave the process and go with a reload (docs/tls.md, "Resumption").
  SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_RENEGOTIATION |
                               SSL_OP_NO_COMPRESSION | SSL_OP_NO_TICKET);
  if (SSL_CTX_set_cipher_list(ctx, c.ciphers.c_str()) != 1) {
    failed = "ciphers: " + openssl_reason();
    return false;
  }
  SSL_CTX_set_session_id_context(ctx, kSessionContext, sizeof kSessionContext - 1);
  SSL_CTX_set_session_cache_mode(
      ctx, c.session_cache_size > 0 ? SSL_SESS_CACHE_SERVER : SSL_SESS_CACHE_OFF);
  SSL_CTX_sess_set_cache_size(ctx, c.session_cache_size);
  // TLS 1.3 sends tickets after the handshake, by default two, each a cached
  // session here; one is all a client resumes with.
  SSL_CTX_set_num_tickets(ctx, c.session_cache_size > 0 ? 1 : 0);
  SSL_CTX_set_alpn_select_cb(ctx, select_alpn, http2 ? &kOfferH2 : nullptr);
  if (c.verify_client != config::VerifyClient::off) {
    const std::string ca = c.client_ca_file.string();
    STACK_OF(X509_NAME)* names = SSL_load_client_CA_file(ca.c_str());
    if (names == nullptr || SSL_CTX_load_verify_locations(ctx, ca.c_str(), nullptr) != 1) {
      sk_X509_NAME_pop_free(names, X509_NAME_free);
      failed = "client_ca_file " + ca + ": " + openssl_reason();
      return false;
    }
    SSL_CTX_set_client_CA_list(ctx, names);
    SSL_CTX_set_verify(ctx,
                       c.verify_client == config::VerifyClient::on
                           ? SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT
                           : SSL_VERIFY_PEER,
                       nullptr);
  }
  return true;
}

}  // namespace

int ServerTls::on_server_name(SSL* ssl, int*, void* arg) {
  const auto* self = static_cast<const ServerTls*>(arg);
  const char* name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
  const std::size_t pick = pick_certificate(self->names_, name != nullptr ? name : "");
  if (pick != 0) SSL_set_SSL_CTX(ssl, self->certificates_[pick].context->native_handle());
  return SSL_TLSEXT_ERR_OK;
}

std::shared_ptr<const ServerTls> ServerTls::build(const config::ServerTlsConfig& config,
                                                  bool http2, std::string& failed) {
  std::shared_ptr<ServerTls> out(new ServerTls());
  out->certificates_.reserve(config.certificates.size());
  for (std::size_t i = 0; i < config.certificates.size(); ++i) {
    const config::TlsCertificateConfig& c = config.certificates[i];
    const std::string at = "certificates[" + std::to_string(i) + "].";
    Certificate certificate;
    certificate.cert_file = c.cert_file.string();
    std::string why;
    if (!read_certificate_facts(c.cert_file, certificate.facts, why)) {
      failed = at + "cert_file " + c.cert_file.string() + ": " + why;
      return nullptr;
    }
    if (!c.ocsp_file.empty() && !read_ocsp(c.ocsp_file, certificate.ocsp, why)) {
      failed = at + "ocsp_file " + c.ocsp_file.string() + ": " + why;
      return nullptr;
    }
    certificate.context = std::make_unique<ssl::context>(ssl::context::tls_server);
    SSL_CTX* ctx = certificate.context->native_handle();
    if (!apply_rules(ctx, config, http2, failed)) return nullptr;
    boost::system::error_code ec;
    certificate.context->use_certificate_chain_file(c.cert_file.string(), ec);
    if (ec) {
      failed = at + "cert_file " + c.cert_file.string() + ": " + ec.message();
      return nullptr;
    }
    certificate.context->use_private_key_file(c.key_file.string(), ssl::context::pem, ec);
    if (ec || SSL_CTX_check_private_key(ctx) != 1) {
      failed = at + "key_file " + c.key_file.string() + ": " +
               (ec ? ec.message() : "does not match the certificate");
      return nullptr;
    }
    out->names_.push_back(certificate.facts.dns_names);
    out->certificates_.push_back(std::move(certificate));
  }
  for (Certificate& c : out->certificates_) {
    // The string lives as long as the set, which every connection holds.
    SSL_CTX_set_tlsext_status_cb(c.context->native_handle(), staple_ocsp);
    SSL_CTX_set_tlsext_status_arg(c.context->native_handle(), &c.ocsp);
  }
  SSL_CTX* first = out->certificates_.front().context->native_handle();
  SSL_CTX_set_tlsext_servername_callback(first, on_server_name);
  SSL_CTX_set_tlsext_servername_arg(first, out.get());
  return out;
}

}  // namespace sumcache::daemon
