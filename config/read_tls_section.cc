// listen[].tls and admin.tls (config/tls_config.h, docs/tls.md).

#include "config/enum_names.h"
#include "config/section_readers.h"

namespace sumcache::config::detail {

namespace {

// Mozilla's list holds 6 suites; 32 KiB is far past any sensible list.
constexpr std::size_t kMaxCipherListBytes = 32 * 1024;
// More names than a listener could ever tell apart by SNI is a mistake, not a setting.
constexpr std::size_t kMaxCertificates = 256;

void read_certificate(ObjectReader& r, TlsCertificateConfig& out) {
  r.read("cert_file", out.cert_file);
  r.read("key_file", out.key_file);
  r.read("ocsp_file", out.ocsp_file);
  if (out.cert_file.empty()) throw ConfigError(r.path_of("cert_file"), "required");
  if (out.key_file.empty()) throw ConfigError(r.path_of("key_file"), "required");
}

}  // namespace

void read_server_tls(ObjectReader& r, ServerTlsConfig& out) {
  if (const Json* v = r.find("certificates")) {
    out.certificates.clear();
    for_each_element(*v, r.path_of("certificates"), [&](const Json& e, const std::string& path) {
      TlsCertificateConfig certificate;
      ObjectReader::read_object(e, path,
                                [&](ObjectReader& c) { read_certificate(c, certificate); });
      out.certificates.push_back(std::move(certificate));
    });
  }
  if (out.certificates.empty()) {
    throw ConfigError(r.path_of("certificates"), "must hold at least one certificate");
  }
  if (out.certificates.size() > kMaxCertificates) {
    throw ConfigError(r.path_of("certificates"),
                      "more than " + std::to_string(kMaxCertificates) + " certificates");
  }
  r.read_enum("min_version", out.min_version);
  r.read("ciphers", out.ciphers);
  if (out.ciphers.empty() || out.ciphers.size() > kMaxCipherListBytes) {
    throw ConfigError(r.path_of("ciphers"), "must be an OpenSSL cipher list of at most " +
                                                std::to_string(kMaxCipherListBytes) + " bytes");
  }
  r.read_enum("verify_client", out.verify_client);
  r.read("client_ca_file", out.client_ca_file);
  if (out.verify_client != VerifyClient::off && out.client_ca_file.empty()) {
    throw ConfigError(r.path_of("client_ca_file"),
                      "required when verify_client is not off (the CA client certificates are "
                      "checked against)");
  }
  r.read_integer("session_cache_size", out.session_cache_size, 0, 1'000'000);
}

}  // namespace sumcache::config::detail
