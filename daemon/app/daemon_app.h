#pragma once
// Assembles a running node from a validated config: logs, store, cache
// service, server. Returns the process exit code.

#include <string>

#include "config/config.h"

namespace sumcache::daemon {

inline constexpr const char* kVersion = SUMCACHE_VERSION;

int run_daemon(config::Config config, const std::string& config_path);

}  // namespace sumcache::daemon
