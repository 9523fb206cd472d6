#pragma once
// Rejected summary messages counted by reason, for the stats page: every
// rejection is logged once with its error's message and counted here.
// Counters are relaxed atomics, so a stats reader needs no lock.

#include <array>
#include <atomic>
#include <cstdint>
#include <system_error>

#include "protocol/protocol_error.h"

namespace sumcache::protocol {

class RejectCounters {
 public:
  static constexpr std::size_t kReasons =
      static_cast<std::size_t>(ProtocolErrc::invalid_summary) + 1;

  // Counts `error` if it is a ProtocolErrc other than ok; others count as "other".
  void record(std::error_code error);
  std::uint64_t count(ProtocolErrc reason) const;
  std::uint64_t other() const { return other_.load(std::memory_order_relaxed); }
  std::uint64_t total() const;

 private:
  std::array<std::atomic<std::uint64_t>, kReasons> counts_{};
  std::atomic<std::uint64_t> other_{0};
};

}  // namespace sumcache::protocol
