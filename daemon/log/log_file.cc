#include "daemon/log/log_file.h"

#include <cerrno>
#include <chrono>
#include <ctime>

namespace sumcache::daemon {

std::FILE* open_log_file(const std::string& path, std::FILE* standard, std::error_code& ec) {
  ec.clear();
  if (path == "-") return standard;
  std::FILE* file = std::fopen(path.c_str(), "a");
  if (file == nullptr) {
    ec = std::error_code(errno, std::generic_category());
    return nullptr;
  }
  std::setvbuf(file, nullptr, _IOLBF, 0);
  return file;
}

void close_log_file(std::FILE* file, std::FILE* standard) {
  if (file != nullptr && file != standard) std::fclose(file);
}

std::string log_timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  localtime_r(&secs, &tm);
  char buf[40];
  const std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03d", static_cast<int>(millis));
  return buf;
}

}  // namespace sumcache::daemon
