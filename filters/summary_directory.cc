#include "filters/summary_directory.h"

#include <algorithm>

#include "filters/filter_error.h"
#include "filters/huge_page_allocator.h"

namespace sumcache::filters {

// A slot's bit is meaningful only in the array whose `slots` holds it: a slot
// that leaves an array keeps its stale bits there (masked out), and a slot
// that enters an array has its whole column rewritten first.
struct SummaryDirectory::Slices {
  Slices(ProbeScheme s, BloomParams p) : scheme(s), params(p), words(p.m) {}
  ProbeScheme scheme;
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

// Squid's k = 4 probes, loaded as probe() loads the hasher's.
std::uint64_t probe_squid(const std::atomic<std::uint64_t>* words, const BloomParams& params,
                          const SquidKey& key, std::uint64_t candidates) {
  const auto positions = squid_probe_positions(key, static_cast<std::uint32_t>(params.m));
  for (const std::uint32_t p : positions) __builtin_prefetch(words + p);
  for (std::size_t i = 0; i < positions.size() && candidates != 0; ++i) {
    candidates &= words[positions[i]].load(std::memory_order_relaxed);
  }
  return candidates;
}

}  // namespace

std::array<std::uint32_t, 4> squid_probe_positions(const SquidKey& key, std::uint32_t bits) {
  std::array<std::uint32_t, 4> out{};
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::uint32_t word = std::uint32_t{key[4 * i]} << 24 |
                               std::uint32_t{key[4 * i + 1]} << 16 |
                               std::uint32_t{key[4 * i + 2]} << 8 | std::uint32_t{key[4 * i + 3]};
    out[i] = word % bits;
  }
  return out;
}

SummaryDirectory::SummaryDirectory(Hasher hasher, std::uint64_t max_bits)
    : hasher_(hasher), max_bits_(max_bits), published_(&views_[0]) {}

SummaryDirectory::~SummaryDirectory() = default;

std::error_code SummaryDirectory::set(unsigned slot, const BloomFilter& bits) {
  if (slot >= kMaxPeers) return FilterErrc::invalid_slot;
  if (bits.hasher() != hasher_) return FilterErrc::parameter_mismatch;
  if (bits.params().m > max_bits_) return FilterErrc::too_large;
  const std::lock_guard lock(writer_);
  Slices* target = find_or_add(ProbeScheme::summary, bits.params());
  // In place (same array), a reader may see some words old and some new: a
  // key in both versions keeps all its bits throughout, so it is never missed.
  const std::span<const std::uint64_t> source = bits.words();
  write_column(*target, slot,
               [&](std::uint64_t i) { return ((source[i >> 6] >> (i & 63)) & 1U) != 0; });
  place(slot, target);
  return {};
}

std::error_code SummaryDirectory::set_squid(unsigned slot, std::span<const std::uint8_t> mask) {
  if (slot >= kMaxPeers) return FilterErrc::invalid_slot;
  const std::uint64_t m = std::uint64_t{mask.size()} * 8;
  if (m == 0 || m > max_bits_) return FilterErrc::too_large;
  const std::lock_guard lock(writer_);
  Slices* target = find_or_add(ProbeScheme::squid, {m, 4});
  write_column(*target, slot,
               [&](std::uint64_t i) { return ((mask[i >> 3] >> (i & 7)) & 1U) != 0; });
  place(slot, target);
  return {};
}

void SummaryDirectory::place(unsigned slot, Slices* target) {
  Slices*& current = slot_arrays_[slot];
  if (current == target) return;
  if (current != nullptr) current->slots &= ~slot_bit(slot);
  target->slots |= slot_bit(slot);
  current = target;
  publish();
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
  return claims(h, nullptr, eligible);
}

std::uint64_t SummaryDirectory::claims(const Hash128& h, const SquidKey* squid_key,
                                       std::uint64_t eligible) const {
  const GracePeriod::Guard guard = grace_.enter();
  const View& view = *published_.load(std::memory_order_acquire);
  std::uint64_t claimed = 0;
  for (unsigned a = 0; a < view.count; ++a) {
    const Entry& e = view.entries[a];
    const std::uint64_t candidates = e.slots & eligible;
    if (candidates == 0) continue;
    if (e.scheme == ProbeScheme::summary) {
      claimed |= probe(e.words, e.params, h, candidates);
    } else if (squid_key != nullptr) {
      claimed |= probe_squid(e.words, e.params, *squid_key, candidates);
    }
  }
  return claimed;
}

bool SummaryDirectory::probes_squid() const {
  const GracePeriod::Guard guard = grace_.enter();
  return published_.load(std::memory_order_acquire)->has_squid;
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

ProbeScheme SummaryDirectory::scheme_of(unsigned slot) const {
  if (slot >= kMaxPeers) return ProbeScheme::summary;
  const std::lock_guard lock(writer_);
  const Slices* slices = slot_arrays_[slot];
  return slices == nullptr ? ProbeScheme::summary : slices->scheme;
}

std::size_t SummaryDirectory::memory_bytes() const {
  const std::lock_guard lock(writer_);
  std::size_t total = 0;
  for (const auto& a : arrays_) total += a->words.size() * sizeof(std::uint64_t);
  return total;
}

// Only words whose slot bit differs are written: an unchanged word keeps its
// cache line clean in every reader's cache.
template <class Bit>
void SummaryDirectory::write_column(Slices& target, unsigned slot, Bit bit_of) {
  const std::uint64_t bit = slot_bit(slot);
  for (std::uint64_t i = 0; i < target.params.m; ++i) {
    const bool want = bit_of(i);
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

SummaryDirectory::Slices* SummaryDirectory::find_or_add(ProbeScheme scheme,
                                                        const BloomParams& params) {
  for (const auto& a : arrays_) {
    if (a->scheme == scheme && a->params == params) return a.get();
  }
  return arrays_.emplace_back(std::make_unique<Slices>(scheme, params)).get();
}

// Release on the store: a reader that sees the new view sees the columns
// written before it. The grace period then retires the old view and lets the
// arrays without slots be freed.
void SummaryDirectory::publish() {
  View& next = published_.load(std::memory_order_relaxed) == &views_[0] ? views_[1] : views_[0];
  next.count = 0;
  next.has_squid = false;
  for (const auto& a : arrays_) {
    if (a->slots == 0) continue;
    next.entries[next.count++] = {a->slots, a->params, a->scheme, a->words.data()};
    next.has_squid = next.has_squid || a->scheme == ProbeScheme::squid;
  }
  published_.store(&next, std::memory_order_release);
  grace_.wait();
  std::erase_if(arrays_, [](const auto& a) { return a->slots == 0; });
}

}  // namespace sumcache::filters
