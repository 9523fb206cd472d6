#pragma once
// The embedded default: one node, forward mode, loopback only, no sharing.

#include <string>

#include "config/config.h"

namespace sumcache::config {

Config default_config();
// The same config as JSON text that spells out every field, for an operator to start from:
// what `sumcached --print-default-config` prints.
std::string default_config_json();

}  // namespace sumcache::config
