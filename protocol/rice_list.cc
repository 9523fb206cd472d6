#include "protocol/rice_list.h"

#include "protocol/rice_code.h"

namespace sumcache::protocol {
namespace {

// Calls visit(gap) for each value's gap.
template <class Visit>
void for_each_gap(std::span<const std::uint64_t> values, ListOrder order, Visit&& visit) {
  std::uint64_t lowest = 0;  // the lowest value the next may be
  for (const std::uint64_t v : values) {
    visit(v - lowest);
    lowest = order == ListOrder::distinct ? v + 1 : v;
  }
}

}  // namespace

RiceChoice choose_rice(std::span<const std::uint64_t> values, ListOrder order) {
  if (values.empty()) return {};
  // The gaps sum to the last value, less one per earlier value in a distinct list.
  const std::uint64_t sum = values.back() - (order == ListOrder::distinct ? values.size() - 1 : 0);
  RiceSizer sizer(static_cast<double>(sum) / static_cast<double>(values.size()));
  for_each_gap(values, order, [&](std::uint64_t gap) { sizer.add(gap); });
  return {sizer.best_parameter(), sizer.best_bits()};
}

void put_rice_list(BitWriter& out, std::span<const std::uint64_t> values, ListOrder order,
                   unsigned r) {
  for_each_gap(values, order, [&](std::uint64_t gap) { put_rice(out, gap, r); });
}

bool get_rice_list(BitReader& in, std::uint64_t count, unsigned r, ListOrder order,
                   std::uint64_t bound, std::vector<std::uint64_t>& out) {
  std::uint64_t lowest = 0;  // the lowest value the next code may name
  for (std::uint64_t i = 0; i < count; ++i) {
    std::uint64_t gap = 0;
    if (lowest >= bound || !get_rice(in, r, bound - 1 - lowest, gap)) return false;
    const std::uint64_t value = lowest + gap;
    out.push_back(value);
    lowest = order == ListOrder::distinct ? value + 1 : value;
  }
  return true;
}

}  // namespace sumcache::protocol
