#pragma once
// A throwaway PKI for HTTPS tests, made at test time with OpenSSL's C API: no
// openssl command needed, no keys checked in.

#include <filesystem>

namespace sumcache::testing {

struct TestPki {
  std::filesystem::path ca_cert;      // ca.pem: the root to verify against
  std::filesystem::path server_cert;  // server.pem: for "localhost", 127.0.0.1 and ::1
  std::filesystem::path server_key;   // server.key: PKCS#8, unencrypted, mode 0600
};

// Writes a fresh CA and a server certificate signed by it into `dir` (which must exist).
// P-256 keys, valid from an hour ago for a day. Throws std::runtime_error with OpenSSL's
// reason when a step fails: without its certificates an HTTPS test cannot start.
TestPki make_test_pki(const std::filesystem::path& dir);

}  // namespace sumcache::testing
