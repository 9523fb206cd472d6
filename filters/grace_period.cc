#include "filters/grace_period.h"

#include <functional>
#include <thread>

namespace sumcache::filters {
namespace {

std::size_t thread_shard(std::size_t shards) {
  thread_local const std::size_t hashed = std::hash<std::thread::id>{}(std::this_thread::get_id());
  return hashed % shards;
}

}  // namespace

// All operations are seq_cst: the argument needs one total order. If the
// reader's second load of epoch_ still sees e, its increment precedes the
// writer's flip, so the writer's later load of that counter sees it. If it
// sees a newer epoch, the reader backs out before reading anything.
GracePeriod::Guard GracePeriod::enter() {
  const std::size_t shard = thread_shard(kShards);
  for (;;) {
    const std::uint64_t e = epoch_.load();
    Counter& counter = counters_[e & 1][shard];
    counter.readers.fetch_add(1);
    if (epoch_.load() == e) return Guard(counter);
    counter.readers.fetch_sub(1);
  }
}

// One flip suffices: the previous wait() drained the other parity, and no
// reader can validate an epoch older than the current one.
void GracePeriod::wait() {
  const std::uint64_t old = epoch_.fetch_add(1);
  for (Counter& counter : counters_[old & 1]) {
    while (counter.readers.load() != 0) std::this_thread::yield();
  }
}

}  // namespace sumcache::filters
