#pragma once
// Loading a config: JSON text in, a fully validated Config out, or a ConfigError that names the
// JSON path of the first problem. Missing fields take the defaults in config.h.

#include <filesystem>
#include <string>
#include <string_view>

#include "config/config.h"
#include "config/config_error.h"

namespace sumcache::config {

// Parses and validates. Touches no file: admin.token_file, cluster.secret_file and
// cluster.redis.password_file stay paths, and the secrets they name stay empty.
Config parse_config(std::string_view json_text, std::string_view source_name);

// Reads the file, parses and validates it, then reads admin.token_file, cluster.secret_file and
// cluster.redis.password_file (relative to the file's directory) into admin.token,
// cluster.secret and cluster.redis.password, trailing newlines trimmed. An unreadable or empty
// secret file is an error at its field's path.
Config load_config_file(const std::filesystem::path& file);

}  // namespace sumcache::config
