#include "config/peer_entry.h"

#include "config/config_error.h"
#include "config/section_readers.h"
#include "config/strict_json.h"

namespace sumcache::config {

std::optional<PeerConfig> parse_peer_entry(std::string_view json, std::string& why) {
  try {
    return detail::read_peer(detail::parse_strict_json(json), "$");
  } catch (const ConfigError& e) {
    why = e.path() + ": " + e.reason();
    return std::nullopt;
  }
}

}  // namespace sumcache::config
