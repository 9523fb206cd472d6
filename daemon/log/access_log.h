#pragma once
// The access log: one line per request with the cache result and timings,
// in Squid's native format or the combined format (config log.access_format).
// Layouts: docs/operations.md. Reopened on SIGUSR1 for rotation.

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>

#include "config/config.h"
#include "daemon/log/cache_result.h"

namespace sumcache::daemon {

// Squid's hierarchy field: a code, and the origin host or peer it names
// ("DIRECT/origin.example"); kept in two parts so that a request copies the
// host (a short one fits in the string itself) instead of concatenating.
struct Hierarchy {
  std::string_view code = "NONE";  // "NONE", "DIRECT", "SIBLING_HIT" or "CARP"
  std::string host;                // empty for NONE
};

struct AccessRecord {
  std::chrono::system_clock::time_point start;
  std::chrono::microseconds elapsed{0};
  std::string client;  // address text
  std::string method;
  std::string url;     // the effective URI, or the raw target when it had none
  unsigned status = 0;
  std::uint64_t bytes = 0;  // sent to the client, head included
  CacheResult result = CacheResult::miss;
  bool from_disk = false;  // a stored body read from the disk tier
  Hierarchy hierarchy;
  std::string content_type;
  std::string referer;
  std::string user_agent;
  unsigned version = 11;
};

// Squid's result tag for a cache result ("TCP_HIT", "TCP_MISS", ...).
const char* squid_tag(CacheResult result);
std::string format_access_line(const AccessRecord& r, config::AccessFormat format);

class AccessLog {
 public:
  // path: a file, "-" for stdout, "" for no log.
  AccessLog(std::string path, config::AccessFormat format);
  ~AccessLog();
  AccessLog(const AccessLog&) = delete;
  AccessLog& operator=(const AccessLog&) = delete;

  bool enabled() const { return file_ != nullptr; }
  void write(const AccessRecord& record);
  void set_format(config::AccessFormat format);
  std::error_code open_error() const { return open_error_; }
  std::error_code reopen();

 private:
  std::string path_;
  config::AccessFormat format_;
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
  std::error_code open_error_;
};

}  // namespace sumcache::daemon
