#include "tests/support/request_log.h"

namespace sumcache::testing {

void RequestLog::record(LoggedRequest request) {
  {
    std::lock_guard lock(mutex_);
    ++per_path_[request.path];
    entries_.push_back(std::move(request));
  }
  changed_.notify_all();
}

std::vector<LoggedRequest> RequestLog::entries() const {
  std::lock_guard lock(mutex_);
  return entries_;
}

std::size_t RequestLog::count(std::string_view path) const {
  std::lock_guard lock(mutex_);
  return count_locked(path);
}

std::size_t RequestLog::count_locked(std::string_view path) const {
  const auto it = per_path_.find(path);
  return it == per_path_.end() ? 0 : it->second;
}

std::size_t RequestLog::total() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

void RequestLog::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
  per_path_.clear();
}

bool RequestLog::wait_for_count(std::string_view path, std::size_t n,
                                std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, timeout, [&] { return count_locked(path) >= n; });
}

}  // namespace sumcache::testing
