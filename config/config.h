#pragma once
// The configuration of one sumcached node: plain structs that mirror the JSON schema field for
// field, so a member's name is its JSON path (docs/configuration.md). Member initializers are
// the documented defaults; tests hold default_config_json() to them. Loading and validation are
// in load_config.h: a Config that came from there has passed every rule.

#include <cstdint>
#include <string>
#include <vector>

#include "config/cache_config.h"
#include "config/cluster_config.h"
#include "config/limits_config.h"
#include "config/proxy_config.h"

namespace sumcache::config {

struct NodeConfig {
  std::string id = "sumcache-1";  // 1 to 64 of [A-Za-z0-9._-]
  friend bool operator==(const NodeConfig&, const NodeConfig&) = default;
};

enum class LogLevel { trace, debug, info, warn, error };
enum class AccessFormat { squid, combined };

struct LogConfig {
  LogLevel level = LogLevel::info;
  std::string access_log = "-";  // a file, "-" for stdout, "" for none
  AccessFormat access_format = AccessFormat::squid;
  std::string error_log = "-";  // a file, or "-" for stderr
  friend bool operator==(const LogConfig&, const LogConfig&) = default;
};

struct Config {
  NodeConfig node;
  Mode mode = Mode::forward;
  std::uint32_t workers = 0;  // 0: one per core
  std::vector<ListenConfig> listen = {{{"127.0.0.1", 3128}, {}}};
  AdminConfig admin;
  ReverseConfig reverse;  // used in reverse mode only
  ForwardConfig forward;  // used in forward mode only
  AccessConfig access;
  LimitsConfig limits;
  CacheConfig cache;
  FilterConfig filter;
  LogConfig log;
  ClusterConfig cluster;
  std::vector<PeerConfig> peers;
  friend bool operator==(const Config&, const Config&) = default;
};

// The filter's n: filter.expected_entries, or when that is 0 the documents the cache budgets
// hold at filter.avg_object_bytes each (memory, plus disk when enabled), at least 1.
std::uint64_t filter_expected_entries(const Config& config);

}  // namespace sumcache::config
