#pragma once
// Collapsed forwarding: concurrent misses for one key make one upstream
// request. The first becomes the leader and fetches; the others wait (bounded)
// on a timer of their own executor that the leader cancels when its response
// is stored or given up, then look in the store again. Safe across worker
// threads: the cancel is posted to each waiter's own executor.

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "daemon/net/asio.h"

namespace sumcache::daemon {

class InflightTable {
 public:
  struct Ticket {
    bool leader = false;
    std::shared_ptr<asio::steady_timer> wait;  // followers: co_await wait->async_wait
  };

  Ticket join(const std::string& key, const asio::any_io_executor& executor,
              std::chrono::milliseconds max_wait);
  // Leader only: wakes every follower of key.
  void finish(const std::string& key);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::vector<std::shared_ptr<asio::steady_timer>>> waiting_;
};

// Calls finish() when the leader's fetch ends, however it ends.
class InflightLease {
 public:
  InflightLease(InflightTable& table, std::string key) : table_(&table), key_(std::move(key)) {}
  ~InflightLease() {
    if (table_ != nullptr) table_->finish(key_);
  }
  InflightLease(const InflightLease&) = delete;
  InflightLease& operator=(const InflightLease&) = delete;

 private:
  InflightTable* table_;
  std::string key_;
};

}  // namespace sumcache::daemon
