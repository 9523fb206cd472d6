#include "protocol/reject_counters.h"

namespace sumcache::protocol {

void RejectCounters::record(std::error_code error) {
  if (!error) return;
  const auto value = static_cast<std::size_t>(error.value());
  if (error.category() == protocol_category() && value > 0 && value < kReasons) {
    counts_[value].fetch_add(1, std::memory_order_relaxed);
  } else {
    other_.fetch_add(1, std::memory_order_relaxed);
  }
}

std::uint64_t RejectCounters::count(ProtocolErrc reason) const {
  const auto value = static_cast<std::size_t>(reason);
  return value < kReasons ? counts_[value].load(std::memory_order_relaxed) : 0;
}

std::uint64_t RejectCounters::total() const {
  std::uint64_t sum = other();
  for (const auto& c : counts_) sum += c.load(std::memory_order_relaxed);
  return sum;
}

}  // namespace sumcache::protocol
