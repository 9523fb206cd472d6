#include "daemon/cache/inflight_table.h"

namespace sumcache::daemon {

InflightTable::Ticket InflightTable::join(const std::string& key,
                                          const asio::any_io_executor& executor,
                                          std::chrono::milliseconds max_wait) {
  std::lock_guard lock(mutex_);
  auto [it, inserted] = waiting_.try_emplace(key);
  if (inserted) return Ticket{true, nullptr};
  auto timer = std::make_shared<asio::steady_timer>(executor, max_wait);
  it->second.push_back(timer);
  return Ticket{false, std::move(timer)};
}

void InflightTable::finish(const std::string& key) {
  std::vector<std::shared_ptr<asio::steady_timer>> followers;
  {
    std::lock_guard lock(mutex_);
    auto it = waiting_.find(key);
    if (it == waiting_.end()) return;
    followers = std::move(it->second);
    waiting_.erase(it);
  }
  // Each follower runs on its own single-threaded io_context, where it is
  // already suspended in async_wait by the time this post runs.
  for (auto& timer : followers) {
    asio::post(timer->get_executor(), [timer] { timer->cancel(); });
  }
}


}  // namespace sumcache::daemon
