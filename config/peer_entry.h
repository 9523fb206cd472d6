#pragma once
// One peers[] entry as JSON text, read by the same rules as the config file's
// (the admin's POST /peers body, docs/admin.md): the section reader's, then
// the entry's rules against this node's config (peer_checks.h).

#include <optional>
#include <string>
#include <string_view>

#include "config/config.h"

namespace sumcache::config {

// nullopt with `why` naming the field ("$.host: required") on bad input, or on
// an entry that `node`'s config file could not hold either ("$.host: 169.254.1.1
// is inside $.access.deny_destinations[0] ...").
std::optional<PeerConfig> parse_peer_entry(std::string_view json, const Config& node,
                                           std::string& why);

}  // namespace sumcache::config
