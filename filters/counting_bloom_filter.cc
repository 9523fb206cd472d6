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

}  // namespace

CountingBloomFilter::CountingBloomFilter(BloomParams params, Hasher hasher)
    : params_(params),
      hasher_(hasher),
      counters_(static_cast<std::size_t>((params.m + 1) / 2), 0),
      changes_(initial_log_slots(params.m)),
      log_cap_(static_cast<std::size_t>(
          std::max<std::uint64_t>(kInitialLogSlots / 2, params.m / kCountersPerLoggedChange))) {}

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

// The counter updates do not branch on counter values: at Summary Cache's
// load whether a probe finds zero is close to a coin toss, and mispredicting
// it cost more than the update. Saturated counters add 0; below 15 there is
// no carry into the neighbouring nibble.
void CountingBloomFilter::add(const Hash128& h) {
  std::array<std::uint64_t, kMaxHashes> left_zero;  // on the stack: add never allocates
  std::size_t flips = 0;
  std::uint64_t saturated = 0;
  std::uint8_t* const counters = counters_.data();
  ProbeSequence probes(h, params_.m);
  for (std::uint32_t i = 0; i < params_.k; ++i) {
    const std::uint64_t p = probes.next();
    const unsigned shift = nibble_shift(p);
    const unsigned c = (counters[p >> 1] >> shift) & 0x0F;
    counters[p >> 1] =
        static_cast<std::uint8_t>(counters[p >> 1] + ((c != kMaxCount ? 1U : 0U) << shift));
    left_zero[flips] = p;
    flips += c == 0 ? 1 : 0;
    saturated += c == kMaxCount - 1 ? 1 : 0;
  }
  nonzero_ += flips;
  saturated_ += saturated;
  if (logging_) log_transitions({left_zero.data(), flips});
}

std::error_code CountingBloomFilter::remove(const Hash128& h) {
  // k <= kMaxHashes (validate()), so the positions fit on the stack: the
  // eviction path allocates nothing.
  std::array<std::uint64_t, kMaxHashes> positions;
  const std::span<std::uint64_t> probed(positions.data(), params_.k);
  // Check every counter before touching any, so that a refusal leaves no
  // trace. Two probes may share a counter, which must then hold a unit for
  // each; that is rare, so the usual case is decided without branching on the
  // data: a counter at zero refuses, and distinct probes accept.
  bool any_zero = false;
  bool repeated = false;
  ProbeSequence probes(h, params_.m);
  for (std::size_t i = 0; i < probed.size(); ++i) {
    probed[i] = probes.next();
    any_zero |= counter(probed[i]) == 0;
    for (std::size_t j = 0; j < i; ++j) repeated |= probed[j] == probed[i];
  }
  if (any_zero || (repeated && !can_absorb_repeats(probed))) {
    ++refused_removes_;
    return FilterErrc::remove_underflow;
  }
  std::array<std::uint64_t, kMaxHashes> became_zero;
  std::size_t flips = 0;
  std::uint8_t* const counters = counters_.data();
  for (std::uint64_t p : probed) {
    const unsigned shift = nibble_shift(p);
    const unsigned c = (counters[p >> 1] >> shift) & 0x0F;
    // A saturated counter has lost count of its keys; decrementing it could
    // reach zero while keys remain, a false negative (Summary Cache).
    counters[p >> 1] =
        static_cast<std::uint8_t>(counters[p >> 1] - ((c != kMaxCount ? 1U : 0U) << shift));
    became_zero[flips] = p;
    flips += c == 1 ? 1 : 0;
  }
  nonzero_ -= flips;
  if (logging_) log_transitions({became_zero.data(), flips});
  return {};
}

bool CountingBloomFilter::contains(const Hash128& h) const {
  ProbeSequence probes(h, params_.m);
  for (std::uint32_t i = 0; i < params_.k; ++i) {
    if (counter(probes.next()) == 0) return false;
  }
  return true;
}

// A counter at c < 15 takes at most c of one key's decrements; probe i needs
// a unit more than the earlier probes to the same counter took.
bool CountingBloomFilter::can_absorb_repeats(std::span<const std::uint64_t> positions) const {
  for (std::size_t i = 0; i < positions.size(); ++i) {
    const unsigned c = counter(positions[i]);
    if (c == kMaxCount) continue;
    unsigned needed = 1;
    for (std::size_t j = 0; j < i; ++j) needed += positions[j] == positions[i] ? 1 : 0;
    if (c < needed) return false;
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

// Past the cap a delta is no longer worth its memory: the log stops, gives
// its table back, and the next push is a full one. Checked before inserting,
// so the table never grows past what the cap needs.
void CountingBloomFilter::log_transitions(std::span<const std::uint64_t> flipped) {
  for (std::uint64_t p : flipped) {
    if (changes_.size() == log_cap_ && !changes_.contains(p)) {
      logging_ = false;
      changes_ = ToggleSet(initial_log_slots(params_.m));
      return;
    }
    changes_.toggle(p);
  }
}

void CountingBloomFilter::mark() {
  changes_.clear();
  logging_ = true;
}

Result<std::vector<std::uint64_t>> CountingBloomFilter::changed_since_mark() const {
  if (!logging_) return make_error_code(FilterErrc::change_log_overflow);
  return changes_.sorted();
}

Result<std::vector<std::uint64_t>> CountingBloomFilter::take_changes() {
  auto changes = changed_since_mark();
  mark();
  return changes;
}

}  // namespace sumcache::filters
