#pragma once
// The effective config as JSON (for the admin /config endpoint, and for diffing on reload) and
// its digest.

#include <nlohmann/json.hpp>
#include <string>

#include "config/config.h"

namespace sumcache::config {

// Every field, sizes in bytes and durations in milliseconds as integers. The token and the
// secret are "<redacted>" when redact_secrets and set; a secret read from a file is never
// shown, only the file's path. Without redaction, parse_config(to_json(c).dump()) == c for any
// c that parse_config returned.
nlohmann::json to_json(const Config& config, bool redact_secrets);

// 16 hex digits: FNV-1a 64 of the redacted canonical dump. Stable across runs and builds, and
// safe to publish because no secret goes into it (so rotating a secret does not change it).
std::string config_digest(const Config& config);

}  // namespace sumcache::config
