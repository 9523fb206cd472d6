#include "filters/fingerprint_directory.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>

#include "filters/filter_error.h"
#include "filters/grace_period.h"
#include "filters/packed_fingerprints.h"
#include "filters/sorted_run.h"

namespace sumcache::filters {

// Readers load `published` inside a grace period guard and probe the tables
// it names; tables are immutable. A writer builds replacement tables, fills
// the view not published, publishes it, waits out the grace period, and only
// then frees the tables it replaced; after that wait no reader holds the old
// view either, so it is the next scratch (as SummaryDirectory does).
struct FingerprintDirectory::Tables {
  struct View {
    unsigned count = 0;
    std::array<const PackedFingerprints*, kMaxPeers> tables{};
  };

  mutable GracePeriod grace;
  std::array<View, 2> views;
  std::atomic<const View*> published{&views[0]};

  mutable std::mutex writer;  // guards the members below
  std::vector<std::unique_ptr<PackedFingerprints>> owned;
  std::array<PackedFingerprints*, kMaxPeers> slot_table{};

  PackedFingerprints* find(std::uint64_t universe) const {
    for (const auto& t : owned) {
      if (t->universe() == universe) return t.get();
    }
    return nullptr;
  }

  // Replaces each `old` (null: none) by its `next` (null: none) in one
  // publication, so that a reader sees all of a set() or none of it; then
  // frees the old tables.
  struct Swap {
    PackedFingerprints* old = nullptr;
    std::unique_ptr<PackedFingerprints> next;
  };
  void replace(std::span<Swap> swaps) {
    std::vector<std::unique_ptr<PackedFingerprints>> retired;
    for (Swap& swap : swaps) {
      for (unsigned s = 0; s < kMaxPeers; ++s) {
        if (slot_table[s] == swap.old) slot_table[s] = nullptr;
      }
      if (swap.old != nullptr) {
        const auto at = std::find_if(owned.begin(), owned.end(),
                                     [&](const auto& t) { return t.get() == swap.old; });
        retired.push_back(std::move(*at));
        owned.erase(at);
      }
    }
    for (Swap& swap : swaps) {
      if (!swap.next) continue;
      for (unsigned s = 0; s < kMaxPeers; ++s) {
        if ((swap.next->slots() >> s & 1U) != 0) slot_table[s] = swap.next.get();
      }
      owned.push_back(std::move(swap.next));
    }
    publish();
    // retired is freed here, after the grace period.
  }
  void replace(PackedFingerprints* old, std::unique_ptr<PackedFingerprints> next) {
    Swap swap{old, std::move(next)};
    replace(std::span<Swap>(&swap, 1));
  }

  void publish() {
    View& next = published.load(std::memory_order_relaxed) == &views[0] ? views[1] : views[0];
    next.count = 0;
    for (const auto& t : owned) next.tables[next.count++] = t.get();
    published.store(&next, std::memory_order_release);
    grace.wait();
  }
};

using Change = PackedFingerprints::Change;

namespace {

bool ascending(std::span<const std::uint64_t> values, bool distinct) {
  for (std::size_t i = 1; i < values.size(); ++i) {
    if (values[i] < values[i - 1] || (distinct && values[i] == values[i - 1])) return false;
  }
  return true;
}

}  // namespace

FingerprintDirectory::FingerprintDirectory(Hasher hasher, std::uint64_t max_entries)
    : hasher_(hasher), cap_{max_entries}, tables_(std::make_unique<Tables>()) {}

FingerprintDirectory::~FingerprintDirectory() = default;

// Checks first, all of them, so that a refused summary changes nothing.
// too_large: over the cap of filters/fingerprint.h (FingerprintCap, the peer
// listener's bound too), or a table of more than 2^32 - 1 entries (all its
// peers together: its offsets are 32-bit).
std::error_code FingerprintDirectory::set(unsigned slot, std::uint64_t universe,
                                          std::span<const std::uint64_t> sorted) {
  if (slot >= kMaxPeers) return FilterErrc::invalid_slot;
  if (universe == 0 || universe > kMaxUniverse) return FilterErrc::invalid_bits;
  if (!cap_.holds_entries(sorted.size()) || !cap_.holds_universe(universe)) {
    return FilterErrc::too_large;
  }
  if (!ascending(sorted, false)) return FilterErrc::not_ascending;
  if (!sorted.empty() && sorted.back() >= universe) return FilterErrc::position_out_of_range;

  const std::lock_guard lock(tables_->writer);
  PackedFingerprints* current = tables_->slot_table[slot];
  const PackedFingerprints* joined =
      current != nullptr && current->universe() == universe ? current : tables_->find(universe);
  if (joined != nullptr &&
      joined->size() - joined->size_of(slot) + sorted.size() > PackedFingerprints::kMaxEntries) {
    return FilterErrc::too_large;
  }
  if (current != nullptr && current->universe() != universe) {
    // The slot moves to another universe: it leaves one table and joins
    // another in one publication.
    PackedFingerprints* target = tables_->find(universe);
    std::array<Tables::Swap, 2> swaps{
        Tables::Swap{current, PackedFingerprints::rebuild(current, current->universe(),
                                                          Change::leaving(slot))},
        Tables::Swap{target, PackedFingerprints::rebuild(target, universe,
                                                         Change::replacing(slot, sorted))}};
    tables_->replace(swaps);
    return {};
  }
  PackedFingerprints* target = current != nullptr ? current : tables_->find(universe);
  tables_->replace(target,
                   PackedFingerprints::rebuild(target, universe, Change::replacing(slot, sorted)));
  return {};
}

std::error_code FingerprintDirectory::apply(unsigned slot,
                                            std::span<const std::uint64_t> removed_ranks,
                                            std::span<const std::uint64_t> added) {
  if (slot >= kMaxPeers) return FilterErrc::invalid_slot;
  const std::lock_guard lock(tables_->writer);
  PackedFingerprints* current = tables_->slot_table[slot];
  if (current == nullptr) return FilterErrc::no_summary;
  const std::uint64_t held = current->size_of(slot);
  if (!removed_ranks.empty() && removed_ranks.back() >= held) {
    return ascending(removed_ranks, true) ? FilterErrc::rank_out_of_range
                                          : FilterErrc::not_ascending;
  }
  if (!ascending(removed_ranks, true) || !ascending(added, false)) {
    return FilterErrc::not_ascending;
  }
  if (!added.empty() && added.back() >= current->universe()) {
    return FilterErrc::position_out_of_range;
  }
  if (!cap_.holds_entries(held - removed_ranks.size() + added.size()) ||
      current->size() - removed_ranks.size() + added.size() > PackedFingerprints::kMaxEntries) {
    return FilterErrc::too_large;
  }
  if (removed_ranks.empty() && added.empty()) return {};
  tables_->replace(current,
                   PackedFingerprints::rebuild(current, current->universe(),
                                               Change::patching(slot, removed_ranks, added)));
  return {};
}

void FingerprintDirectory::clear(unsigned slot) {
  if (slot >= kMaxPeers) return;
  const std::lock_guard lock(tables_->writer);
  PackedFingerprints* current = tables_->slot_table[slot];
  if (current == nullptr) return;
  tables_->replace(
      current, PackedFingerprints::rebuild(current, current->universe(), Change::leaving(slot)));
}

std::uint64_t FingerprintDirectory::claims(const Hash128& h, std::uint64_t eligible) const {
  const GracePeriod::Guard guard = tables_->grace.enter();
  const Tables::View& view = *tables_->published.load(std::memory_order_acquire);
  std::uint64_t claimed = 0;
  for (unsigned i = 0; i < view.count; ++i) {
    const PackedFingerprints& t = *view.tables[i];
    if ((t.slots() & eligible) == 0) continue;
    claimed |= t.probe(fingerprint(h, t.universe()));
  }
  return claimed & eligible;
}

bool FingerprintDirectory::has(unsigned slot) const {
  if (slot >= kMaxPeers) return false;
  const std::lock_guard lock(tables_->writer);
  return tables_->slot_table[slot] != nullptr;
}

std::uint64_t FingerprintDirectory::universe_of(unsigned slot) const {
  if (slot >= kMaxPeers) return 0;
  const std::lock_guard lock(tables_->writer);
  const PackedFingerprints* t = tables_->slot_table[slot];
  return t == nullptr ? 0 : t->universe();
}

std::uint64_t FingerprintDirectory::size_of(unsigned slot) const {
  if (slot >= kMaxPeers) return 0;
  const std::lock_guard lock(tables_->writer);
  const PackedFingerprints* t = tables_->slot_table[slot];
  return t == nullptr ? 0 : t->size_of(slot);
}

std::vector<std::uint64_t> FingerprintDirectory::sorted_of(unsigned slot) const {
  std::vector<std::uint64_t> out;
  if (slot >= kMaxPeers) return out;
  const std::lock_guard lock(tables_->writer);
  const PackedFingerprints* t = tables_->slot_table[slot];
  if (t == nullptr) return out;
  out.reserve(t->size_of(slot));
  t->for_each_of(slot, [&](std::uint64_t f) { out.push_back(f); });
  return out;
}

std::size_t FingerprintDirectory::memory_bytes() const {
  const std::lock_guard lock(tables_->writer);
  std::size_t total = heap_block_bytes(sizeof(Tables));
  for (const auto& t : tables_->owned) total += t->memory_bytes();
  return total;
}

}  // namespace sumcache::filters
