#pragma once
// TLS on a listener this node serves (listen[].tls, admin.tls): the
// certificates it presents, chosen by SNI, and the protocol rules
// (docs/tls.md). Paths are made absolute against the config file's directory
// by load_config_file, so a reload reads the same files.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sumcache::config {

struct TlsCertificateConfig {
  std::filesystem::path cert_file;  // PEM: the certificate, then its chain
  std::filesystem::path key_file;   // PEM: its private key
  std::filesystem::path ocsp_file;  // DER OCSP response to staple; empty: none
  friend bool operator==(const TlsCertificateConfig&, const TlsCertificateConfig&) = default;
};

enum class TlsVersion { tls1_2, tls1_3 };
enum class VerifyClient { off, optional, on };

// Mozilla's "intermediate" TLS 1.2 suites, forward secret and AEAD only;
// TLS 1.3's suites are OpenSSL's defaults, all of them sound.
inline constexpr const char* kDefaultTls12Ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
    "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

struct ServerTlsConfig {
  std::vector<TlsCertificateConfig> certificates;  // at least one; the first is the default
  TlsVersion min_version = TlsVersion::tls1_2;
  std::string ciphers = kDefaultTls12Ciphers;
  VerifyClient verify_client = VerifyClient::off;
  std::filesystem::path client_ca_file;      // required unless verify_client is off
  std::uint32_t session_cache_size = 20480;  // sessions held for resumption; 0: no resumption
  friend bool operator==(const ServerTlsConfig&, const ServerTlsConfig&) = default;
};

}  // namespace sumcache::config
