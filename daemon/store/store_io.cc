#include "daemon/store/store_io.h"

#include <pthread.h>

#include <utility>

namespace sumcache::daemon {

StoreIo::StoreIo(std::size_t threads) {
  threads_.reserve(threads);
  for (std::size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
}

StoreIo::~StoreIo() { stop(); }

void StoreIo::post(std::function<void()> job) {
  {
    std::lock_guard lock(mutex_);
    if (!stop_) {
      queue_.push_back(std::move(job));
      wake_.notify_one();
      return;
    }
  }
  job();
}

void StoreIo::stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
}

// Stops only with an empty queue, so that stop() runs every queued job.
void StoreIo::loop() {
  pthread_setname_np(pthread_self(), "sc-disk-io");
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;
    std::function<void()> job = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    job();
    job = nullptr;  // its captures go before the next wait
    lock.lock();
  }
}

}  // namespace sumcache::daemon
