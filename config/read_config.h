#pragma once
// The root of the schema: every section read, then the rules across sections checked.
// Internal to the config library.

#include "config/config.h"
#include "config/json_value.h"

namespace sumcache::config::detail {

Config read_config(const Json& root);

}  // namespace sumcache::config::detail
