#include "daemon/store/disk_writer.h"

#include <pthread.h>
#include <sched.h>

#include <utility>

namespace sumcache::daemon {

DiskWriter::DiskWriter(Run run, std::uint64_t max_queued_bytes)
    : run_(std::move(run)), max_bytes_(max_queued_bytes), thread_([this] { loop(); }) {}

DiskWriter::~DiskWriter() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

bool DiskWriter::push(DiskJob job, std::uint64_t bytes) {
  {
    std::lock_guard lock(mutex_);
    if (bytes > 0 && bytes_ + bytes > max_bytes_) return false;
    bytes_ += bytes;
    queue_.push_back({std::move(job), bytes});
  }
  wake_.notify_one();
  return true;
}

void DiskWriter::flush() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return queue_.empty() && !busy_; });
}

std::size_t DiskWriter::queued_jobs() const {
  std::lock_guard lock(mutex_);
  return queue_.size() + (busy_ ? 1 : 0);
}

std::uint64_t DiskWriter::queued_bytes() const {
  std::lock_guard lock(mutex_);
  return bytes_;
}

// Stops only with an empty queue, so that destruction flushes.
void DiskWriter::loop() {
  pthread_setname_np(pthread_self(), "sc-disk");  // for top -H, perf and ps -L
  // Writing a copy of what memory already serves must not take a saturated
  // core from the workers: on one core it halved hit throughput while a fill
  // was being written (docs/performance.md). An idle core runs it at once;
  // under sustained saturation the queue fills and later objects stay
  // memory-only (disk_writes_skipped). Failing to lower it changes nothing else.
  sched_param param{};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &param);
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;  // stop_ with nothing left
    Queued next = std::move(queue_.front());
    queue_.pop_front();
    busy_ = true;
    lock.unlock();
    run_(next.job);
    next.job.object.reset();  // release the body before reporting idle
    lock.lock();
    busy_ = false;
    bytes_ -= next.bytes;
    if (queue_.empty()) idle_.notify_all();
  }
}

}  // namespace sumcache::daemon
