#include "filters/counting_bloom_filter.h"

#include <algorithm>
#include <array>
#include <utility>

#include "filters/filter_error.h"

namespace sumcache::filters {
namespace {

unsigned nibble_shift(std::uint64_t i) { return static_cast<unsigned>(i & 1) << 2; }

// At most m positions can be pending, and 2m slots hold m without growing.
std::size_t initial_log_slots(std::uint64_t m) {
  return static_cast<std::size_t>(
      std::min<std::uint64_t>(CountingBloomFilter::kInitialLogSlots, 2 * m));
}

// What one add or remove does to a counter at each value c, as flags: the
// updates then index a table instead of comparing c, so that no branch waits
// on a counter's cache miss. GCC turns `c == 0 ? 1 : 0` back into a branch,
// and at Summary Cache's load whether a probe finds zero is close to a coin
// toss: each misprediction also discarded the next key's work.
// The flags are bit numbers.
constexpr unsigned kStep = 0;     // add: c < 15; remove: 0 < c < 15
constexpr unsigned kFlip = 1;     // add: 0 -> 1; remove: 1 -> 0
constexpr unsigned kSpecial = 2;  // add: 14 -> 15 (saturates); remove: c = 0 (underflow)

constexpr std::array<std::uint8_t, 16> counter_table(bool add) {
  std::array<std::uint8_t, 16> t{};
  for (unsigned c = 0; c < 16; ++c) {
    const bool step = add ? c < 15 : (c > 0 && c < 15);
    const bool flip = add ? c == 0 : c == 1;
    const bool special = add ? c == 14 : c == 0;
    t[c] = static_cast<std::uint8_t>((step ? 1U << kStep : 0) | (flip ? 1U << kFlip : 0) |
                                     (special ? 1U << kSpecial : 0));
  }
  return t;
}
constexpr std::array<std::uint8_t, 16> kAddTable = counter_table(true);
constexpr std::array<std::uint8_t, 16> kRemoveTable = counter_table(false);

unsigned flag(std::uint8_t t, unsigned f) { return (t >> f) & 1U; }

}  // namespace

CountingBloomFilter::CountingBloomFilter(BloomParams params, Hasher hasher)
    : params_(params),
      hasher_(hasher),
      counters_(static_cast<std::size_t>((params.m + 1) / 2), 0),
      changes_(initial_log_slots(params.m),
               static_cast<std::size_t>(std::max<std::uint64_t>(
                   kInitialLogSlots / 2, params.m / kCountersPerLoggedChange))) {}

Result<CountingBloomFilter> CountingBloomFilter::create(BloomParams params, Hasher hasher) {
  if (auto ec = validate(params)) return ec;
  return CountingBloomFilter(params, hasher);
}

Result<CountingBloomFilter> CountingBloomFilter::for_capacity(std::uint64_t n, double p,
                                                              Hasher hasher) {
  auto params = optimal_params(n, p);
  if (!params) return params.error();
  return create(*params, hasher);
}

// All k cache lines are requested before any is updated, so that their misses
// overlap instead of queueing behind each read-modify-write.
void CountingBloomFilter::locate(const Hash128& h, std::uint64_t* positions) const {
  const std::uint8_t* const counters = counters_.data();
  ProbeSequence probes(h, params_.m);
  for (std::uint32_t i = 0; i < params_.k; ++i) {
    positions[i] = probes.next();
    __builtin_prefetch(counters + (positions[i] >> 1), 1);
  }
}

// Saturated counters add 0; below 15 there is no carry into the neighbouring nibble.
void CountingBloomFilter::add(const Hash128& h) {
  std::array<std::uint64_t, kMaxHashes> positions;  // on the stack: add never allocates
  locate(h, positions.data());
  std::uint64_t* const left_zero = changes_.stage(params_.k);
  const std::uint32_t k = params_.k;  // a local: the byte stores below may alias any member
  std::uint8_t* const counters = counters_.data();
  std::size_t flips = 0;
  std::uint64_t saturated = 0;
  for (std::uint32_t i = 0; i < k; ++i) {
    const std::uint64_t p = positions[i];
    const unsigned shift = nibble_shift(p);
    const unsigned byte = counters[p >> 1];
    const std::uint8_t t = kAddTable[(byte >> shift) & 0x0F];
    counters[p >> 1] = static_cast<std::uint8_t>(byte + (flag(t, kStep) << shift));
    left_zero[flips] = p;
    flips += flag(t, kFlip);
    saturated += flag(t, kSpecial);
  }
  nonzero_ += flips;
  saturated_ += saturated;
  changes_.commit(flips);
}

// One pass: each probe takes its unit as it goes, so a repeated probe sees
// what the earlier ones left, and a counter at c < 15 absorbs at most c of one
// key's decrements. A probe that finds 0 refuses the remove, and the units
// already taken are given back: the filter ends byte for byte as it was. The
// refusal is rare (the store removes only keys it added), the pass is not.
std::error_code CountingBloomFilter::remove(const Hash128& h) {
  // k <= kMaxHashes (validate()), so the positions fit on the stack: the
  // eviction path allocates nothing.
  std::array<std::uint64_t, kMaxHashes> positions;
  locate(h, positions.data());
  std::uint64_t* const became_zero = changes_.stage(params_.k);
  const std::uint32_t k = params_.k;
  std::uint8_t* const counters = counters_.data();
  std::uint32_t taken = 0;  // bit i: probe i decremented its counter
  unsigned underflow = 0;
  std::size_t flips = 0;
  for (std::uint32_t i = 0; i < k; ++i) {
    const std::uint64_t p = positions[i];
    const unsigned shift = nibble_shift(p);
    const unsigned byte = counters[p >> 1];
    // A saturated counter has lost count of its keys; decrementing it could
    // reach zero while keys remain, a false negative (Summary Cache).
    const std::uint8_t t = kRemoveTable[(byte >> shift) & 0x0F];
    counters[p >> 1] = static_cast<std::uint8_t>(byte - (flag(t, kStep) << shift));
    taken |= flag(t, kStep) << i;
    became_zero[flips] = p;
    flips += flag(t, kFlip);
    underflow |= flag(t, kSpecial);
  }
  if (underflow != 0) {
    give_back({positions.data(), k}, taken);
    ++refused_removes_;
    return FilterErrc::remove_underflow;
  }
  nonzero_ -= flips;
  changes_.commit(flips);
  return {};
}

// Each counter ends where it started: it only gets back units that this
// remove took from it, so no nibble passes 15 on the way.
void CountingBloomFilter::give_back(std::span<const std::uint64_t> positions, std::uint32_t taken) {
  for (std::size_t i = 0; i < positions.size(); ++i) {
    if ((taken >> i & 1) == 0) continue;
    counters_[positions[i] >> 1] = static_cast<std::uint8_t>(counters_[positions[i] >> 1] +
                                                             (1U << nibble_shift(positions[i])));
  }
}

bool CountingBloomFilter::contains(const Hash128& h) const {
  ProbeSequence probes(h, params_.m);
  for (std::uint32_t i = 0; i < params_.k; ++i) {
    if (counter(probes.next()) == 0) return false;
  }
  return true;
}

BloomFilter CountingBloomFilter::bit_view() const {
  auto view = BloomFilter::create(params_, hasher_);  // cannot fail: create() validated params_
  for (std::size_t b = 0; b < counters_.size(); ++b) {
    const std::uint8_t byte = counters_[b];
    if (byte == 0) continue;
    if ((byte & 0x0F) != 0) view->set_bit(2 * std::uint64_t{b}, true);
    if ((byte & 0xF0) != 0) view->set_bit(2 * std::uint64_t{b} + 1, true);
  }
  return std::move(view).value();
}

void CountingBloomFilter::mark() { changes_.mark(); }

Result<std::vector<std::uint64_t>> CountingBloomFilter::changed_since_mark() const {
  return changes_.changed_since_mark();
}

Result<std::vector<std::uint64_t>> CountingBloomFilter::take_changes() {
  auto changes = changed_since_mark();
  mark();
  return changes;
}

}  // namespace sumcache::filters
