#pragma once
// A throwaway PKI for HTTPS tests, made at test time with OpenSSL's C API: no
// openssl command needed, no keys checked in.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sumcache::testing {

struct TestPki {
  std::filesystem::path ca_cert;      // ca.pem: the root to verify against
  std::filesystem::path server_cert;  // server.pem: for "localhost", 127.0.0.1 and ::1
  std::filesystem::path server_key;   // server.key: PKCS#8, unencrypted, mode 0600
  std::filesystem::path ca_key;       // ca.key: for issue_certificate, mode 0600
};

// A certificate issue_certificate or issue_client_certificate wrote.
struct IssuedCertificate {
  std::filesystem::path cert;  // <stem>.pem
  std::filesystem::path key;   // <stem>.key: PKCS#8, unencrypted, mode 0600
  std::int64_t not_after = 0;  // Unix seconds, as the certificate says
};

// Writes a fresh CA and a server certificate signed by it into `dir` (which must exist).
// P-256 keys, valid from an hour ago for a day. Throws std::runtime_error with OpenSSL's
// reason when a step fails: without its certificates an HTTPS test cannot start.
TestPki make_test_pki(const std::filesystem::path& dir);

// Another server certificate from `pki`'s CA, into dir/<file_stem>.{pem,key}: its subject
// CN is the first DNS name (else the first IP), its subjectAltName lists `dns_names` (a
// wildcard "*.example.test" too) and `ip_addresses`; valid from an hour ago until
// `valid_for` from now (negative, down to an hour: one that has expired).
// Each call makes a new key and serial, so two calls with the same names tell apart.
// Throws std::runtime_error like make_test_pki.
IssuedCertificate issue_certificate(const TestPki& pki, const std::filesystem::path& dir,
                                    const std::string& file_stem,
                                    const std::vector<std::string>& dns_names,
                                    const std::vector<std::string>& ip_addresses,
                                    std::chrono::seconds valid_for);

// A client certificate (extendedKeyUsage clientAuth) for mutual TLS, subject CN
// `common_name`, into dir/<file_stem>.{pem,key}.
IssuedCertificate issue_client_certificate(const TestPki& pki, const std::filesystem::path& dir,
                                           const std::string& file_stem,
                                           const std::string& common_name,
                                           std::chrono::seconds valid_for);

}  // namespace sumcache::testing
