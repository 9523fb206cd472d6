#pragma once
// What a reload (SIGHUP) may apply live. The running process keeps its listeners, workers,
// store and cluster membership; rules, limits and log verbosity follow the new file.

#include <string>
#include <vector>

#include "config/config.h"

namespace sumcache::config {

// JSON paths of every field that differs, sorted; secrets read from files included
// ("$.limits.max_connections", "$.peers[1].host"). An array that changed length is one path.
std::vector<std::string> changed_paths(const Config& running, const Config& next);

// The subset of changed_paths that only a restart can apply: an empty result means next can
// be applied live. The live fields are listed in docs/configuration.md.
std::vector<std::string> restart_required_changes(const Config& running, const Config& next);

}  // namespace sumcache::config
