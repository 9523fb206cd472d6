#pragma once
// The store's small pool of I/O threads: file opens, body reads and fill
// writes that a proxy worker must not wait on (docs/store.md, "Threads").
// Jobs run in FIFO order on any of the threads; a caller that needs its jobs
// in order (one fill's appends) queues the next only after the previous ran.

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace sumcache::daemon {

class StoreIo {
 public:
  explicit StoreIo(std::size_t threads);
  ~StoreIo();  // runs every queued job, then joins
  StoreIo(const StoreIo&) = delete;
  StoreIo& operator=(const StoreIo&) = delete;

  void post(std::function<void()> job);
  // Returns once every job queued so far has run; later posts run at once on
  // the caller's thread (after shutdown nothing may wait for a pool thread).
  void stop();

 private:
  void loop();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;  // last: they start after the members they use
};

}  // namespace sumcache::daemon
