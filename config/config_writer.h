#pragma once
// Config to JSON, with a choice of how secrets appear. Internal to the config library:
// to_json() and the reload diff are its users.

#include "config/config.h"
#include "config/json_value.h"

namespace sumcache::config::detail {

enum class Secrets {
  redacted,     // inline secrets as "<redacted>"; a secret from a file as its path only
  as_written,   // inline secrets shown; a secret from a file as its path only
  with_values,  // every secret's value, wherever it came from, beside its file's path
};

Json write_config(const Config& config, Secrets secrets);

}  // namespace sumcache::config::detail
