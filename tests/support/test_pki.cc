#include "tests/support/test_pki.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>

namespace sumcache::testing {

namespace {

using KeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;
using CertPtr = std::unique_ptr<X509, decltype(&X509_free)>;
using BioPtr = std::unique_ptr<BIO, decltype(&BIO_free)>;

constexpr long kValidBeforeSeconds = 3600;  // clocks of test machines may disagree a little
constexpr long kValidForSeconds = 24L * 3600;

void check(bool ok, const std::string& step) {
  if (ok) return;
  char reason[256];
  ERR_error_string_n(ERR_get_error(), reason, sizeof reason);
  throw std::runtime_error("make_test_pki: " + step + ": " + reason);
}

KeyPtr make_key() {
  // P-256: fast to generate, so a test pays milliseconds, not the seconds of RSA.
  KeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"), EVP_PKEY_free);
  check(key != nullptr, "generate key");
  return key;
}

void add_extension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &ctx, nid, value);
  check(extension != nullptr && X509_add_ext(cert, extension, -1) == 1, value);
  X509_EXTENSION_free(extension);
}

// A certificate for `key` named `common_name`, without extensions or signature yet;
// `issuer` null for a self-signed one.
CertPtr make_cert(EVP_PKEY* key, const char* common_name, X509* issuer) {
  CertPtr cert(X509_new(), X509_free);
  check(cert != nullptr, "X509_new");
  std::uint64_t serial = 0;
  check(RAND_bytes(reinterpret_cast<unsigned char*>(&serial), sizeof serial) == 1, "serial");
  serial >>= 1;  // positive, as RFC 5280 §4.1.2.2 wants
  X509_NAME* name = X509_get_subject_name(cert.get());
  const auto text = [](const char* s) { return reinterpret_cast<const unsigned char*>(s); };
  check(
      X509_set_version(cert.get(), X509_VERSION_3) == 1 &&
          ASN1_INTEGER_set_uint64(X509_get_serialNumber(cert.get()), serial) == 1 &&
          X509_gmtime_adj(X509_getm_notBefore(cert.get()), -kValidBeforeSeconds) != nullptr &&
          X509_gmtime_adj(X509_getm_notAfter(cert.get()), kValidForSeconds) != nullptr &&
          X509_set_pubkey(cert.get(), key) == 1 &&
          X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC, text("sumcache tests"), -1, -1, 0) ==
              1 &&
          X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, text(common_name), -1, -1, 0) == 1 &&
          X509_set_issuer_name(cert.get(), issuer ? X509_get_subject_name(issuer) : name) == 1,
      std::string("fill certificate ") + common_name);
  return cert;
}

void sign(X509* cert, EVP_PKEY* issuer_key) {
  check(X509_sign(cert, issuer_key, EVP_sha256()) > 0, "sign");
}

void write_cert(X509* cert, const std::filesystem::path& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "w"), BIO_free);
  check(bio != nullptr && PEM_write_bio_X509(bio.get(), cert) == 1, "write " + path.string());
}

void write_key(EVP_PKEY* key, const std::filesystem::path& path) {
  // Made private before the key goes in; BIO_new_file keeps the mode when it truncates.
  std::ofstream(path).close();
  std::filesystem::permissions(
      path, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  BioPtr bio(BIO_new_file(path.c_str(), "w"), BIO_free);
  check(bio != nullptr &&
            PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) == 1,
        "write " + path.string());
}

}  // namespace

TestPki make_test_pki(const std::filesystem::path& dir) {
  const KeyPtr ca_key = make_key();
  const CertPtr ca = make_cert(ca_key.get(), "sumcache test CA", nullptr);
  add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
  sign(ca.get(), ca_key.get());

  const KeyPtr server_key = make_key();
  const CertPtr server = make_cert(server_key.get(), "localhost", ca.get());
  add_extension(server.get(), ca.get(), NID_basic_constraints, "critical,CA:FALSE");
  add_extension(server.get(), ca.get(), NID_key_usage, "critical,digitalSignature");
  add_extension(server.get(), ca.get(), NID_ext_key_usage, "serverAuth");
  // Clients check the name against subjectAltName only (RFC 6125 §6.4.4), never the CN.
  add_extension(server.get(), ca.get(), NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1,IP:::1");
  add_extension(server.get(), ca.get(), NID_subject_key_identifier, "hash");
  add_extension(server.get(), ca.get(), NID_authority_key_identifier, "keyid:always");
  sign(server.get(), ca_key.get());

  TestPki pki{dir / "ca.pem", dir / "server.pem", dir / "server.key"};
  write_cert(ca.get(), pki.ca_cert);
  write_cert(server.get(), pki.server_cert);
  write_key(server_key.get(), pki.server_key);
  return pki;
}

}  // namespace sumcache::testing
