#pragma once
// What a reload (SIGHUP) may apply live, by the table in reload_table.h. The running process
// keeps its listeners, workers, store and (but in summary mode) cluster membership; rules,
// limits and log verbosity follow the new file.

#include <string>
#include <vector>

#include "config/config.h"

namespace sumcache::config {

// JSON paths of every field that differs, sorted; secrets read from files included
// ("$.limits.max_connections", "$.peers[1].host"). An array that changed length is one path.
std::vector<std::string> changed_paths(const Config& running, const Config& next);

// The subset of changed_paths that only a restart can apply (reload_table.h): an empty result
// means next can be applied live whole.
std::vector<std::string> restart_required_changes(const Config& running, const Config& next);

// `running` with the live fields of `next` (reload_table.h); every other field keeps its
// running value until a restart. config_test checks it against the table: what it leaves out
// is exactly restart_required_changes(running, next).
Config apply_live(const Config& running, const Config& next);

}  // namespace sumcache::config
