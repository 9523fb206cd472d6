#pragma once
// One peers[] entry as JSON text, read by the same rules as the config file's
// (the admin's POST /peers body, docs/admin.md).

#include <optional>
#include <string>
#include <string_view>

#include "config/cluster_config.h"

namespace sumcache::config {

// nullopt with `why` naming the field ("$.host: required") on bad input.
std::optional<PeerConfig> parse_peer_entry(std::string_view json, std::string& why);

}  // namespace sumcache::config
