#pragma once
// GracePeriod: lets one writer free memory that lock-free readers may still be
// reading, without readers ever waiting for the writer (a minimal RCU).
//
// A reader brackets its reads with a Guard from enter(); the writer publishes
// its new state, then wait() returns once every reader that could have seen
// the old state has left. Readers pin one of 2 x kShards counters (epoch
// parity, thread-hashed shard on its own cache line), so readers on different
// threads rarely write the same line; the writer flips the epoch and waits for
// the old parity's counters to drain. Cost per reader: two uncontended atomic
// increments and two loads; readers retry only if the epoch flips between
// their two loads of it.

#include <array>
#include <atomic>
#include <cstdint>

namespace sumcache::filters {

class GracePeriod {
  struct alignas(64) Counter {
    std::atomic<std::uint64_t> readers{0};
  };

 public:
  class [[nodiscard]] Guard {
   public:
    explicit Guard(Counter& counter) : counter_(counter) {}
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
    ~Guard() { counter_.readers.fetch_sub(1); }

   private:
    Counter& counter_;
  };

  Guard enter();
  // Returns once every Guard entered before this call has been destroyed.
  // One caller at a time; never call it while holding a Guard.
  void wait();

 private:
  static constexpr std::size_t kShards = 16;
  alignas(64) std::atomic<std::uint64_t> epoch_{0};
  std::array<std::array<Counter, kShards>, 2> counters_;
};

}  // namespace sumcache::filters
