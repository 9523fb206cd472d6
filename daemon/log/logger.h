#pragma once
// The error log: leveled lines to stderr or a file, safe from any thread,
// reopened in place on SIGUSR1 for log rotation (as nginx and Squid do).

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>

namespace sumcache::daemon {

enum class LogLevel { trace, debug, info, warn, error };

// Same order as config::LogLevel, so a config value converts by static_cast.
std::string_view to_string(LogLevel level);

class Logger {
 public:
  // path "-" is stderr; anything else a file opened for append.
  Logger(LogLevel level, std::string path);
  ~Logger();
  Logger(const Logger&) = delete;
  Logger& operator=(const Logger&) = delete;

  bool enabled(LogLevel level) const { return level >= level_.load(std::memory_order_relaxed); }
  void log(LogLevel level, std::string_view message);
  void trace(std::string_view m) { if (enabled(LogLevel::trace)) log(LogLevel::trace, m); }
  void debug(std::string_view m) { if (enabled(LogLevel::debug)) log(LogLevel::debug, m); }
  void info(std::string_view m) { if (enabled(LogLevel::info)) log(LogLevel::info, m); }
  void warn(std::string_view m) { if (enabled(LogLevel::warn)) log(LogLevel::warn, m); }
  void error(std::string_view m) { log(LogLevel::error, m); }

  void set_level(LogLevel level) { level_.store(level, std::memory_order_relaxed); }
  std::error_code reopen();

 private:
  std::atomic<LogLevel> level_;
  std::string path_;
  std::mutex mutex_;
  std::FILE* file_ = nullptr;
};

}  // namespace sumcache::daemon
