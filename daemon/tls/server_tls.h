#pragma once
// The OpenSSL contexts of one TLS listener, built from its config
// (config/tls_config.h, docs/tls.md): one context per certificate, all with
// the same rules, the first one the connection starts with. Its SNI callback
// moves a handshake to the context of the certificate that names the server
// (sni_match.h); sessions are cached by that first context, so a resumed
// session works whatever certificate it was made with. Immutable once
// built: a reload builds a new set, and connections hold the one they began with.

#include <boost/asio/ssl/context.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "config/tls_config.h"
#include "daemon/tls/certificate_facts.h"

namespace sumcache::daemon {

class ServerTls {
 public:
  struct Certificate {
    std::string cert_file;  // as configured, for logs and /metrics
    CertificateFacts facts;
    std::string ocsp;  // DER response to staple; empty: none
    std::unique_ptr<boost::asio::ssl::context> context;
  };

  // Null with `failed` naming the field ("certificates[1].key_file") and the
  // reason when a file does not load or a rule is not OpenSSL's. `http2`:
  // ALPN offers h2 before http/1.1.
  static std::shared_ptr<const ServerTls> build(const config::ServerTlsConfig& config,
                                                bool http2, std::string& failed);

  ServerTls(const ServerTls&) = delete;
  ServerTls& operator=(const ServerTls&) = delete;

  // The context every connection starts its handshake with.
  boost::asio::ssl::context& initial() const { return *certificates_.front().context; }
  const std::vector<Certificate>& certificates() const { return certificates_; }

 private:
  ServerTls() = default;
  static int on_server_name(SSL* ssl, int* alert, void* arg);

  std::vector<Certificate> certificates_;
  std::vector<std::vector<std::string>> names_;  // per certificate, for pick_certificate
};

}  // namespace sumcache::daemon
