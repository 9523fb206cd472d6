#include "config/peer_entry.h"

#include "config/config_error.h"
#include "config/peer_checks.h"
#include "config/section_readers.h"
#include "config/strict_json.h"

namespace sumcache::config {

std::optional<PeerConfig> parse_peer_entry(std::string_view json, const Config& node,
                                           std::string& why) {
  try {
    PeerConfig peer = detail::read_peer(detail::parse_strict_json(json), "$");
    detail::check_peer_entry(node, peer, "$");
    return peer;
  } catch (const ConfigError& e) {
    why = e.path() + ": " + e.reason();
    return std::nullopt;
  }
}

}  // namespace sumcache::config
