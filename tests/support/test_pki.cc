#include "tests/support/test_pki.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <ctime>
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
constexpr std::chrono::seconds kValidFor = std::chrono::hours(24);

void check(bool ok, const std::string& step) {
  if (ok) return;
  char reason[256];
  ERR_error_string_n(ERR_get_error(), reason, sizeof reason);
  throw std::runtime_error("test_pki: " + step + ": " + reason);
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
CertPtr make_cert(EVP_PKEY* key, const char* common_name, X509* issuer,
                  std::chrono::seconds valid_for) {
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
          X509_gmtime_adj(X509_getm_notAfter(cert.get()), static_cast<long>(valid_for.count())) !=
              nullptr &&
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

KeyPtr read_key(const std::filesystem::path& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "r"), BIO_free);
  KeyPtr key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr,
             EVP_PKEY_free);
  check(key != nullptr, "read " + path.string());
  return key;
}

CertPtr read_cert(const std::filesystem::path& path) {
  BioPtr bio(BIO_new_file(path.c_str(), "r"), BIO_free);
  CertPtr cert(bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr, X509_free);
  check(cert != nullptr, "read " + path.string());
  return cert;
}

std::int64_t not_after(X509* cert) {
  std::tm tm{};
  check(ASN1_TIME_to_tm(X509_get0_notAfter(cert), &tm) == 1, "read notAfter");
  return static_cast<std::int64_t>(::timegm(&tm));
}

// An end-entity certificate for a fresh key, signed by `ca`: `extended_usage` is
// serverAuth or clientAuth, `alt_names` the subjectAltName value ("" for none).
IssuedCertificate issue(X509* ca, EVP_PKEY* ca_key, const std::filesystem::path& dir,
                        const std::string& file_stem, const std::string& common_name,
                        const char* extended_usage, const std::string& alt_names,
                        std::chrono::seconds valid_for) {
  const KeyPtr key = make_key();
  const CertPtr cert = make_cert(key.get(), common_name.c_str(), ca, valid_for);
  add_extension(cert.get(), ca, NID_basic_constraints, "critical,CA:FALSE");
  add_extension(cert.get(), ca, NID_key_usage, "critical,digitalSignature");
  add_extension(cert.get(), ca, NID_ext_key_usage, extended_usage);
  // Clients check the name against subjectAltName only (RFC 6125 §6.4.4), never the CN.
  if (!alt_names.empty()) {
    add_extension(cert.get(), ca, NID_subject_alt_name, alt_names.c_str());
  }
  add_extension(cert.get(), ca, NID_subject_key_identifier, "hash");
  add_extension(cert.get(), ca, NID_authority_key_identifier, "keyid:always");
  sign(cert.get(), ca_key);
  IssuedCertificate issued{dir / (file_stem + ".pem"), dir / (file_stem + ".key"),
                           not_after(cert.get())};
  write_cert(cert.get(), issued.cert);
  write_key(key.get(), issued.key);
  return issued;
}

}  // namespace

TestPki make_test_pki(const std::filesystem::path& dir) {
  const KeyPtr ca_key = make_key();
  const CertPtr ca = make_cert(ca_key.get(), "sumcache test CA", nullptr, kValidFor);
  add_extension(ca.get(), ca.get(), NID_basic_constraints, "critical,CA:TRUE");
  add_extension(ca.get(), ca.get(), NID_key_usage, "critical,keyCertSign,cRLSign");
  add_extension(ca.get(), ca.get(), NID_subject_key_identifier, "hash");
  sign(ca.get(), ca_key.get());

  TestPki pki{dir / "ca.pem", dir / "server.pem", dir / "server.key", dir / "ca.key"};
  write_cert(ca.get(), pki.ca_cert);
  write_key(ca_key.get(), pki.ca_key);
  issue(ca.get(), ca_key.get(), dir, "server", "localhost", "serverAuth",
        "DNS:localhost,IP:127.0.0.1,IP:::1", kValidFor);
  return pki;
}

IssuedCertificate issue_certificate(const TestPki& pki, const std::filesystem::path& dir,
                                    const std::string& file_stem,
                                    const std::vector<std::string>& dns_names,
                                    const std::vector<std::string>& ip_addresses,
                                    std::chrono::seconds valid_for) {
  std::string alt_names;
  for (const auto& name : dns_names) alt_names += (alt_names.empty() ? "DNS:" : ",DNS:") + name;
  for (const auto& ip : ip_addresses) alt_names += (alt_names.empty() ? "IP:" : ",IP:") + ip;
  if (alt_names.empty()) throw std::runtime_error("issue_certificate: no DNS name and no IP");
  const std::string common_name = dns_names.empty() ? ip_addresses.front() : dns_names.front();
  const CertPtr ca = read_cert(pki.ca_cert);
  const KeyPtr ca_key = read_key(pki.ca_key);
  return issue(ca.get(), ca_key.get(), dir, file_stem, common_name, "serverAuth", alt_names,
               valid_for);
}

IssuedCertificate issue_client_certificate(const TestPki& pki, const std::filesystem::path& dir,
                                           const std::string& file_stem,
                                           const std::string& common_name,
                                           std::chrono::seconds valid_for) {
  const CertPtr ca = read_cert(pki.ca_cert);
  const KeyPtr ca_key = read_key(pki.ca_key);
  return issue(ca.get(), ca_key.get(), dir, file_stem, common_name, "clientAuth", "", valid_for);
}

}  // namespace sumcache::testing
