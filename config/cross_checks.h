#pragma once
// The rules that relate fields of different sections: listeners that would collide, budgets
// too small for the largest object, filter size, peers that clash. Internal to the config
// library.

#include "config/config.h"

namespace sumcache::config::detail {

// Throws ConfigError at the path of the first field that breaks a rule.
void check_cross_fields(const Config& config);

}  // namespace sumcache::config::detail
