#include "daemon/log/access_log.h"

#include <ctime>

#include "daemon/log/log_file.h"

namespace sumcache::daemon {
namespace {

std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }

std::string squid_line(const AccessRecord& r) {
  const auto since_epoch = r.start.time_since_epoch();
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(since_epoch).count();
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(since_epoch).count() % 1000;
  char prefix[64];
  std::snprintf(prefix, sizeof prefix, "%lld.%03lld %6lld ", static_cast<long long>(secs),
                static_cast<long long>(millis),
                static_cast<long long>(r.elapsed.count() / 1000));
  return std::string(prefix) + r.client + " " + squid_tag(r.result) + "/" +
         (r.status < 100 ? "000" : std::to_string(r.status)) + " " + std::to_string(r.bytes) +
         " " + r.method + " " + r.url + " - " + std::string(r.hierarchy.code) +
         (r.hierarchy.host.empty() ? "" : "/" + r.hierarchy.host) + " " + or_dash(r.content_type);
}

std::string combined_line(const AccessRecord& r) {
  const std::time_t t = std::chrono::system_clock::to_time_t(r.start);
  std::tm tm{};
  localtime_r(&t, &tm);
  char when[40];
  std::strftime(when, sizeof when, "%d/%b/%Y:%H:%M:%S %z", &tm);
  const char* version = r.version == 10 ? "HTTP/1.0" : "HTTP/1.1";
  // Combined format, then the cache result and the time taken (as nginx's
  // $upstream_cache_status and $request_time are commonly appended).
  return r.client + " - - [" + when + "] \"" + r.method + " " + r.url + " " + version + "\" " +
         std::to_string(r.status) + " " + std::to_string(r.bytes) + " \"" + or_dash(r.referer) +
         "\" \"" + or_dash(r.user_agent) + "\" " + to_string(r.result) + " " +
         std::to_string(r.elapsed.count() / 1000) + "ms";
}

}  // namespace

const char* squid_tag(CacheResult result) {
  switch (result) {
    case CacheResult::hit: return "TCP_HIT";
    case CacheResult::miss: return "TCP_MISS";
    case CacheResult::refresh_hit: return "TCP_REFRESH_UNMODIFIED";
    case CacheResult::refresh_miss: return "TCP_REFRESH_MODIFIED";
    case CacheResult::stale_hit: return "TCP_STALE_HIT";
    case CacheResult::collapsed_hit: return "TCP_CF_HIT";
    case CacheResult::peer_hit: return "TCP_PEER_HIT";
    case CacheResult::owner: return "TCP_MISS";
    case CacheResult::pass: return "TCP_MISS_PASS";
    case CacheResult::tunnel: return "TCP_TUNNEL";
    case CacheResult::error: return "TAG_NONE";
  }
  return "TAG_NONE";
}

std::string format_access_line(const AccessRecord& r, config::AccessFormat format) {
  return format == config::AccessFormat::squid ? squid_line(r) : combined_line(r);
}

AccessLog::AccessLog(std::string path, config::AccessFormat format)
    : path_(std::move(path)), format_(format) {
  if (!path_.empty()) file_ = open_log_file(path_, stdout, open_error_);
}

AccessLog::~AccessLog() { close_log_file(file_, stdout); }

void AccessLog::write(const AccessRecord& record) {
  if (file_ == nullptr) return;
  std::lock_guard lock(mutex_);
  const std::string line = format_access_line(record, format_) + "\n";
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fflush(file_);
}

void AccessLog::set_format(config::AccessFormat format) {
  std::lock_guard lock(mutex_);
  format_ = format;
}

std::error_code AccessLog::reopen() {
  if (path_.empty()) return {};
  std::error_code ec;
  std::FILE* fresh = open_log_file(path_, stdout, ec);
  if (fresh == nullptr) return ec;
  std::lock_guard lock(mutex_);
  close_log_file(file_, stdout);
  file_ = fresh;
  return {};
}

}  // namespace sumcache::daemon
