#pragma once
// What a listener needs to know of a certificate file it serves: the DNS
// names SNI is matched against, and when it expires (for /metrics).

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sumcache::daemon {

struct CertificateFacts {
  std::vector<std::string> dns_names;  // lower case; the subject's CN when it has no DNS SAN
  std::int64_t not_after = 0;          // Unix seconds
};

// The first certificate of a PEM file (the leaf of a chain); false with
// `failed` saying why when it cannot be read or parsed.
bool read_certificate_facts(const std::filesystem::path& file, CertificateFacts& out,
                            std::string& failed);

}  // namespace sumcache::daemon
