#include "filters/summary_directory.h"

#include <algorithm>

#include "filters/filter_error.h"
#include "filters/huge_page_allocator.h"

namespace sumcache::filters {

// A slot's bit is meaningful only in the array whose `slots` holds it: a slot
// that leaves an array keeps its stale bits there (masked out), and a slot
// that enters an array has its whole column rewritten first.
struct SummaryDirectory::Slices {
  explicit Slices(BloomParams p) : params(p), words(p.m) {}
  BloomParams params;
  std::uint64_t slots = 0;
  FilterArray<std::atomic<std::uint64_t>> words;  // value-initialized to 0
};

namespace {

std::uint64_t slot_bit(unsigned slot) { return std::uint64_t{1} << slot; }

// The k words of the key, prefetched before any is used so that the k cache
// misses overlap; then ANDed, stopping at the first zero.
std::uint64_t probe(const std::atomic<std::uint64_t>* words, const BloomParams& params,
                    const Hash128& h, std::uint64_t candidates) {
  std::array<const std::atomic<std::uint64_t>*, kMaxHashes> at;
  ProbeSequence probes(h, params.m);
  for (std::uint32_t i = 0; i < params.k; ++i) {
    at[i] = words + probes.next();
    __builtin_prefetch(at[i]);
  }
  for (std::uint32_t i = 0; i < params.k && candidates != 0; ++i) {
    candidates &= at[i]->load(std::memory_order_relaxed);
  }
  return candidates;
}

}  // namespace

SummaryDirectory::SummaryDirectory(Hasher hasher, std::uint64_t max_bits)
    : hasher_(hasher), max_bits_(max_bits), published_(&views_[0]) {}

SummaryDirectory::~SummaryDirectory() = default;

std::error_code SummaryDirectory::set(unsigned slot, const BloomFilter& bits) {
  if (slot >= kMaxPeers) return FilterErrc::invalid_slot;
  if (bits.hasher() != hasher_) return FilterErrc::parameter_mismatch;
  if (bits.params().m > max_bits_) return FilterErrc::too_large;
  const std::lock_guard lock(writer_);
  Slices* target = find_or_add(bits.params());
  // In place (same array), a reader may see some words old and some new: a
  // key in both versions keeps all its bits throughout, so it is never missed.
  write_column(*target, slot, bits);
  Slices*& current = slot_arrays_[slot];
  if (current == target) return {};
  if (current != nullptr) current->slots &= ~slot_bit(slot);
  target->slots |= slot_bit(slot);
  current = target;
  publish();
  return {};
}

std::error_code SummaryDirectory::apply(unsigned slot, std::span<const BitChange> changes) {
  if (slot >= kMaxPeers) return FilterErrc::invalid_slot;
  const std::lock_guard lock(writer_);
  Slices* slices = slot_arrays_[slot];
  if (slices == nullptr) return FilterErrc::no_summary;
  const auto beyond = [m = slices->params.m](const BitChange& c) { return c.position >= m; };
  if (std::any_of(changes.begin(), changes.end(), beyond)) {
    return FilterErrc::position_out_of_range;
  }
  const std::uint64_t bit = slot_bit(slot);
  for (const BitChange& c : changes) {
    if (c.value) {
      slices->words[c.position].fetch_or(bit, std::memory_order_relaxed);
    } else {
      slices->words[c.position].fetch_and(~bit, std::memory_order_relaxed);
    }
  }
  return {};
}

void SummaryDirectory::clear(unsigned slot) {
  if (slot >= kMaxPeers) return;
  const std::lock_guard lock(writer_);
  Slices*& current = slot_arrays_[slot];
  if (current == nullptr) return;
  current->slots &= ~slot_bit(slot);
  current = nullptr;
  publish();
}

std::uint64_t SummaryDirectory::claims(const Hash128& h, std::uint64_t eligible) const {
  const GracePeriod::Guard guard = grace_.enter();
  const View& view = *published_.load(std::memory_order_acquire);
  std::uint64_t claimed = 0;
  for (unsigned a = 0; a < view.count; ++a) {
    const Entry& e = view.entries[a];
    const std::uint64_t candidates = e.slots & eligible;
    if (candidates != 0) claimed |= probe(e.words, e.params, h, candidates);
  }
  return claimed;
}

bool SummaryDirectory::has(unsigned slot) const {
  if (slot >= kMaxPeers) return false;
  const std::lock_guard lock(writer_);
  return slot_arrays_[slot] != nullptr;
}

BloomParams SummaryDirectory::params_of(unsigned slot) const {
  if (slot >= kMaxPeers) return {};
  const std::lock_guard lock(writer_);
  const Slices* slices = slot_arrays_[slot];
  return slices == nullptr ? BloomParams{} : slices->params;
}

std::size_t SummaryDirectory::memory_bytes() const {
  const std::lock_guard lock(writer_);
  std::size_t total = 0;
  for (const auto& a : arrays_) total += a->words.size() * sizeof(std::uint64_t);
  return total;
}

// Only words whose slot bit differs are written: an unchanged word keeps its
// cache line clean in every reader's cache.
void SummaryDirectory::write_column(Slices& target, unsigned slot, const BloomFilter& bits) {
  const std::uint64_t bit = slot_bit(slot);
  const std::span<const std::uint64_t> source = bits.words();
  for (std::uint64_t i = 0; i < target.params.m; ++i) {
    const bool want = ((source[i >> 6] >> (i & 63)) & 1U) != 0;
    std::atomic<std::uint64_t>& word = target.words[i];
    const bool have = (word.load(std::memory_order_relaxed) & bit) != 0;
    if (want == have) continue;
    if (want) {
      word.fetch_or(bit, std::memory_order_relaxed);
    } else {
      word.fetch_and(~bit, std::memory_order_relaxed);
    }
  }
}

SummaryDirectory::Slices* SummaryDirectory::find_or_add(const BloomParams& params) {
  for (const auto& a : arrays_) {
    if (a->params == params) return a.get();
  }
  return arrays_.emplace_back(std::make_unique<Slices>(params)).get();
}

// Release on the store: a reader that sees the new view sees the columns
// written before it. The grace period then retires the old view and lets the
// arrays without slots be freed.
void SummaryDirectory::publish() {
  View& next = published_.load(std::memory_order_relaxed) == &views_[0] ? views_[1] : views_[0];
  next.count = 0;
  for (const auto& a : arrays_) {
    if (a->slots != 0) next.entries[next.count++] = {a->slots, a->params, a->words.data()};
  }
  published_.store(&next, std::memory_order_release);
  grace_.wait();
  std::erase_if(arrays_, [](const auto& a) { return a->slots == 0; });
}

}  // namespace sumcache::filters
