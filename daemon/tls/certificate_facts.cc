#include "daemon/tls/certificate_facts.h"

#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <memory>

namespace sumcache::daemon {

namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct NamesFree {
  void operator()(GENERAL_NAMES* n) const { GENERAL_NAMES_free(n); }
};

std::string lower(const unsigned char* data, int size) {
  std::string out(reinterpret_cast<const char*>(data), static_cast<std::size_t>(size));
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

void add_names(X509* cert, std::vector<std::string>& out) {
  std::unique_ptr<GENERAL_NAMES, NamesFree> names(
      static_cast<GENERAL_NAMES*>(X509_get_ext_d2i(cert, NID_subject_alt_name, nullptr, nullptr)));
  if (names) {
    for (int i = 0; i < sk_GENERAL_NAME_num(names.get()); ++i) {
      const GENERAL_NAME* name = sk_GENERAL_NAME_value(names.get(), i);
      if (name->type != GEN_DNS) continue;
      const ASN1_STRING* dns = name->d.dNSName;
      out.push_back(lower(ASN1_STRING_get0_data(dns), ASN1_STRING_length(dns)));
    }
  }
  if (!out.empty()) return;
  // RFC 6125 §6.4.4: the CN only when no DNS SAN is present.
  X509_NAME* subject = X509_get_subject_name(cert);
  const int at = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
  if (at < 0) return;
  const ASN1_STRING* cn = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, at));
  out.push_back(lower(ASN1_STRING_get0_data(cn), ASN1_STRING_length(cn)));
}

}  // namespace

bool read_certificate_facts(const std::filesystem::path& file, CertificateFacts& out,
                            std::string& failed) {
  std::unique_ptr<BIO, BioFree> bio(BIO_new_file(file.c_str(), "r"));
  if (!bio) {
    failed = "cannot open";
    return false;
  }
  std::unique_ptr<X509, X509Free> cert(PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr));
  if (!cert) {
    failed = "no PEM certificate";
    return false;
  }
  std::tm tm{};
  if (ASN1_TIME_to_tm(X509_get0_notAfter(cert.get()), &tm) != 1) {
    failed = "an unreadable notAfter";
    return false;
  }
  out = {};
  out.not_after = static_cast<std::int64_t>(timegm(&tm));
  add_names(cert.get(), out.dns_names);
  return true;
}

}  // namespace sumcache::daemon
