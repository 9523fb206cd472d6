#include "config/config_json.h"

#include <cstdio>

#include "config/config_writer.h"

namespace sumcache::config {
namespace {

// FNV-1a 64 (Fowler, Noll, Vo): simple, fixed constants, the same on every platform, which
// std::hash does not promise.
std::uint64_t fnv1a_64(std::string_view bytes) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char byte : bytes) {
    hash ^= byte;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

}  // namespace

nlohmann::json to_json(const Config& config, bool redact_secrets) {
  using detail::Secrets;
  return detail::write_config(config, redact_secrets ? Secrets::redacted : Secrets::as_written);
}

std::string config_digest(const Config& config) {
  // nlohmann::json keeps object keys sorted, so the dump is canonical.
  std::string dump = to_json(config, true).dump();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(fnv1a_64(dump)));
  return hex;
}

}  // namespace sumcache::config
