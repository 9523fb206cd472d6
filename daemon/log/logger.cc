#include "daemon/log/logger.h"

#include <array>

#include "daemon/log/log_file.h"

namespace sumcache::daemon {
namespace {
constexpr std::array<std::string_view, 5> kNames = {"trace", "debug", "info", "warn", "error"};
}

std::string_view to_string(LogLevel level) { return kNames[static_cast<std::size_t>(level)]; }


Logger::Logger(LogLevel level, std::string path) : level_(level), path_(std::move(path)) {
  std::error_code ec;
  file_ = open_log_file(path_, stderr, ec);
  if (file_ == nullptr) {
    // The config check already proved the directory writable; fall back rather than lose lines.
    file_ = stderr;
    std::fprintf(stderr, "sumcached: cannot open error log %s: %s; logging to stderr\n",
                 path_.c_str(), ec.message().c_str());
  }
}

Logger::~Logger() { close_log_file(file_, stderr); }

void Logger::log(LogLevel level, std::string_view message) {
  const std::string stamp = log_timestamp();
  std::lock_guard lock(mutex_);
  std::fprintf(file_, "%s %-5s %.*s\n", stamp.c_str(), std::string(to_string(level)).c_str(),
               static_cast<int>(message.size()), message.data());
  std::fflush(file_);
}

std::error_code Logger::reopen() {
  std::error_code ec;
  std::FILE* fresh = open_log_file(path_, stderr, ec);
  if (fresh == nullptr) return ec;
  std::lock_guard lock(mutex_);
  close_log_file(file_, stderr);
  file_ = fresh;
  return {};
}

}  // namespace sumcache::daemon
