#include "filters/counting_bloom_filter.h"

#include <algorithm>
#include <array>
#include <utility>

#include "filters/filter_error.h"

namespace sumcache::filters {
namespace {

// At most m positions can be pending, and 2m slots hold m without growing.
std::size_t initial_log_slots(std::uint64_t m) {
  return static_cast<std::size_t>(
      std::min<std::uint64_t>(CountingBloomFilter::kInitialLogSlots, 2 * m));
}

// What one add or remove does to a byte of two counters, for every byte value
// and nibble (index: the byte, plus 256 for its high nibble), so that the
// updates look the answer up instead of comparing counters: no branch then
// waits on a counter's cache miss. (GCC turns `c == 0 ? 1 : 0` back into a
// branch; at Summary Cache's load whether a probe finds zero is close to a coin
// toss, and each misprediction also discarded the next key's work.)
// Bits 0-7 of an entry are added to the byte, mod 256: one unit up or down in
// the nibble, or 0 for a saturated counter and for a remove that finds 0.
// Bit 8 is set when the counter flips between zero and nonzero, bit 16 when it
// saturates (add) or would underflow (remove): summing the entries shifted
// right by 8 counts both for a key, flips in the low byte (k <= 32).
using StepTable = std::array<std::uint32_t, 512>;

constexpr StepTable step_table(bool add) {
  StepTable t{};
  for (unsigned i = 0; i < t.size(); ++i) {
    const unsigned shift = i < 256 ? 0 : 4;
    const unsigned c = (i >> shift) & 0x0F;
    const bool step = add ? c < 15 : (c > 0 && c < 15);
    const bool flip = add ? c == 0 : c == 1;
    const bool special = add ? c == 14 : c == 0;
    const unsigned unit = add ? 1U << shift : 256U - (1U << shift);
    t[i] = (step ? unit : 0U) | (flip ? 1U << 8 : 0U) | (special ? 1U << 16 : 0U);
  }
  return t;
}
constexpr StepTable kAddSteps = step_table(true);
constexpr StepTable kRemoveSteps = step_table(false);

std::size_t step_index(unsigned byte, std::uint64_t position) {
  return byte | static_cast<std::size_t>(position & 1) << 8;
}

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
  std::uint32_t sums = 0;  // flips in bits 0-7, saturations above
  for (std::uint32_t i = 0; i < k; ++i) {
    const std::uint64_t p = positions[i];
    const unsigned byte = counters[p >> 1];
    const std::uint32_t step = kAddSteps[step_index(byte, p)];
    counters[p >> 1] = static_cast<std::uint8_t>(byte + step);
    left_zero[sums & 0xFF] = p;
    sums += step >> 8;
  }
  nonzero_ += sums & 0xFF;
  saturated_ += sums >> 8;
  changes_.commit(sums & 0xFF);
}

// One pass: each probe takes its unit as it goes, so a repeated probe sees
// what the earlier ones left, and a counter at c < 15 absorbs at most c of one
// key's decrements. A probe that finds 0 refuses the remove, and the bytes are
// put back as they were: the refusal is rare (the store removes only keys it
// added), the pass is not.
std::error_code CountingBloomFilter::remove(const Hash128& h) {
  // k <= kMaxHashes (validate()), so the positions fit on the stack: the
  // eviction path allocates nothing.
  std::array<std::uint64_t, kMaxHashes> positions;
  std::array<std::uint8_t, kMaxHashes> before;
  locate(h, positions.data());
  std::uint64_t* const became_zero = changes_.stage(params_.k);
  const std::uint32_t k = params_.k;
  std::uint8_t* const counters = counters_.data();
  std::uint32_t sums = 0;  // flips in bits 0-7, underflows above
  for (std::uint32_t i = 0; i < k; ++i) {
    const std::uint64_t p = positions[i];
    const unsigned byte = counters[p >> 1];
    // A saturated counter has lost count of its keys; decrementing it could
    // reach zero while keys remain, a false negative (Summary Cache).
    const std::uint32_t step = kRemoveSteps[step_index(byte, p)];
    before[i] = static_cast<std::uint8_t>(byte);
    counters[p >> 1] = static_cast<std::uint8_t>(byte + step);
    became_zero[sums & 0xFF] = p;
    sums += step >> 8;
  }
  if ((sums >> 8) != 0) {
    // Backwards, so that a byte probed twice ends at its first snapshot.
    for (std::uint32_t i = k; i-- > 0;) counters[positions[i] >> 1] = before[i];
    ++refused_removes_;
    return FilterErrc::remove_underflow;
  }
  nonzero_ -= sums;
  changes_.commit(sums);
  return {};
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
