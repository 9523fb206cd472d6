#include "filters/fingerprint_table.h"

#include <algorithm>
#include <array>
#include <cassert>

#include "filters/filter_error.h"
#include "filters/sorted_run.h"

namespace sumcache::filters {
namespace {

constexpr unsigned kLowBits = 16;
constexpr std::uint64_t kLowMask = (std::uint64_t{1} << kLowBits) - 1;
constexpr unsigned kPageBits = 10;
constexpr std::size_t kPageRuns = std::size_t{1} << kPageBits;
constexpr std::uint64_t kRemoval = std::uint64_t{1} << 63;

std::uint64_t page_of(std::uint64_t f) { return f >> (kLowBits + kPageBits); }
std::size_t run_of(std::uint64_t f) { return (f >> kLowBits) & (kPageRuns - 1); }
std::uint16_t low_of(std::uint64_t f) { return static_cast<std::uint16_t>(f & kLowMask); }

}  // namespace

// kPageRuns runs and a Fenwick tree of their sizes: the elements of the runs
// before run r in O(log kPageRuns).
struct FingerprintTable::Page {
  std::array<SortedRun, kPageRuns> runs;
  std::array<std::uint64_t, kPageRuns + 1> tree{};  // 1-based
  std::uint64_t total = 0;

  void add_to(std::size_t run, std::uint64_t delta) {  // delta mod 2^64: a decrement too
    for (std::size_t i = run + 1; i <= kPageRuns; i += i & (~i + 1)) tree[i] += delta;
    total += delta;
  }
  std::uint64_t before(std::size_t run) const {
    std::uint64_t sum = 0;
    for (std::size_t i = run; i > 0; i -= i & (~i + 1)) sum += tree[i];
    return sum;
  }
};

FingerprintTable::FingerprintTable(std::uint64_t universe)
    : universe_(universe), pages_((universe - 1) / (kPageRuns << kLowBits) + 1) {}

Result<FingerprintTable> FingerprintTable::create(std::uint64_t universe) {
  if (universe == 0 || universe > kMaxUniverse) return make_error_code(FilterErrc::invalid_bits);
  return FingerprintTable(universe);
}

FingerprintTable::FingerprintTable(const FingerprintTable& other)
    : universe_(other.universe_),
      size_(other.size_),
      pages_(other.pages_.size()),
      log_(other.log_),
      max_logged_(other.max_logged_),
      marked_(other.marked_),
      overflowed_(other.overflowed_),
      adds_since_mark_(other.adds_since_mark_) {
  for (std::size_t p = 0; p < pages_.size(); ++p) {
    if (other.pages_[p]) pages_[p] = std::make_unique<Page>(*other.pages_[p]);
  }
}

FingerprintTable& FingerprintTable::operator=(const FingerprintTable& other) {
  if (this != &other) *this = FingerprintTable(other);
  return *this;
}

FingerprintTable::FingerprintTable(FingerprintTable&&) noexcept = default;
FingerprintTable& FingerprintTable::operator=(FingerprintTable&&) noexcept = default;
FingerprintTable::~FingerprintTable() = default;

void FingerprintTable::add(std::uint64_t f) {
  assert(f < universe_);
  std::unique_ptr<Page>& page = pages_[page_of(f)];
  if (!page) page = std::make_unique<Page>();
  const std::size_t r = run_of(f);
  page->runs[r].insert(low_of(f));
  page->add_to(r, 1);
  ++size_;
  ++adds_since_mark_;
  log_change(f);
}

std::error_code FingerprintTable::remove(std::uint64_t f) {
  if (f >= universe_) return FilterErrc::remove_underflow;
  const std::unique_ptr<Page>& page = pages_[page_of(f)];
  const std::size_t r = run_of(f);
  if (!page || !page->runs[r].erase(low_of(f))) return FilterErrc::remove_underflow;
  page->add_to(r, ~std::uint64_t{0});
  --size_;
  log_change(f | kRemoval);
  return {};
}

std::uint64_t FingerprintTable::count(std::uint64_t f) const {
  if (f >= universe_) return 0;
  const Page* page = pages_[page_of(f)].get();
  return page == nullptr ? 0 : page->runs[run_of(f)].count(low_of(f));
}

std::uint64_t FingerprintTable::rank(std::uint64_t f) const {
  if (f >= universe_) return size_;
  const std::uint64_t p = page_of(f);
  std::uint64_t below = 0;
  for (std::uint64_t q = 0; q < p; ++q) {
    if (pages_[q]) below += pages_[q]->total;
  }
  const Page* page = pages_[p].get();
  if (page == nullptr) return below;
  const std::size_t r = run_of(f);
  return below + page->before(r) + page->runs[r].below(low_of(f));
}

std::uint64_t FingerprintTable::size() const { return size_; }
std::uint64_t FingerprintTable::universe() const { return universe_; }

std::vector<std::uint64_t> FingerprintTable::sorted() const {
  std::vector<std::uint64_t> out;
  out.reserve(size_);
  for (std::size_t p = 0; p < pages_.size(); ++p) {
    if (!pages_[p]) continue;
    for (std::size_t r = 0; r < kPageRuns; ++r) {
      const std::uint64_t high = ((std::uint64_t{p} << kPageBits) | r) << kLowBits;
      for (const std::uint16_t low : pages_[p]->runs[r]) out.push_back(high | low);
    }
  }
  return out;
}

// Everything allocated, as the heap holds it: each block with its malloc
// header and rounding (heap_block_bytes), the vectors at their capacity.
std::size_t FingerprintTable::memory_bytes() const {
  std::size_t total = sizeof(*this) + heap_block_bytes(pages_.capacity() * sizeof(pages_[0])) +
                      heap_block_bytes(log_.capacity() * sizeof(std::uint64_t));
  for (const auto& page : pages_) {
    if (!page) continue;
    total += heap_block_bytes(sizeof(Page));
    for (const SortedRun& run : page->runs) total += run.memory_bytes();
  }
  return total;
}

void FingerprintTable::mark(std::size_t max_logged) {
  // The log is freed, not kept at its peak: between marks it holds what one
  // delta needs, and memory_bytes() is then the set's own.
  log_ = {};
  max_logged_ = max_logged;
  marked_ = true;
  overflowed_ = false;
  adds_since_mark_ = 0;
}

void FingerprintTable::log_change(std::uint64_t entry) {
  if (!marked_ || overflowed_) return;
  if (log_.size() == max_logged_) {
    overflowed_ = true;
    log_.clear();
    log_.shrink_to_fit();
    return;
  }
  log_.push_back(entry);
}

// A fingerprint's net change n (adds minus removals since the mark): added n
// times if n > 0; if n < 0, |n| of its copies in the marked set removed, named
// by consecutive ranks from its rank there. Its rank there is its rank now
// less the net change of every smaller fingerprint.
Result<FingerprintDelta> FingerprintTable::take_delta() {
  if (!marked_ || overflowed_) return make_error_code(FilterErrc::change_log_overflow);
  std::vector<std::uint64_t> changes = std::move(log_);
  std::sort(changes.begin(), changes.end(),
            [](std::uint64_t a, std::uint64_t b) { return (a & ~kRemoval) < (b & ~kRemoval); });
  FingerprintDelta delta;
  std::int64_t net_below = 0;
  for (std::size_t i = 0; i < changes.size();) {
    const std::uint64_t f = changes[i] & ~kRemoval;
    std::int64_t net = 0;
    for (; i < changes.size() && (changes[i] & ~kRemoval) == f; ++i) {
      net += (changes[i] & kRemoval) != 0 ? -1 : 1;
    }
    if (net > 0) {
      delta.added.insert(delta.added.end(), static_cast<std::size_t>(net), f);
    } else if (net < 0) {
      const std::uint64_t first = rank(f) - static_cast<std::uint64_t>(net_below);
      for (std::int64_t c = 0; c < -net; ++c) {
        delta.removed_ranks.push_back(first + static_cast<std::uint64_t>(c));
      }
    }
    net_below += net;
  }
  mark(max_logged_);
  return delta;
}

std::uint64_t FingerprintTable::adds_since_mark() const { return adds_since_mark_; }

FingerprintDelta fingerprint_difference(std::span<const std::uint64_t> base,
                                        std::span<const std::uint64_t> now) {
  FingerprintDelta delta;
  std::size_t i = 0;
  std::size_t j = 0;
  while (i < base.size() || j < now.size()) {
    if (j == now.size() || (i < base.size() && base[i] < now[j])) {
      delta.removed_ranks.push_back(i++);
    } else if (i == base.size() || now[j] < base[i]) {
      delta.added.push_back(now[j++]);
    } else {
      ++i;
      ++j;
    }
  }
  return delta;
}

}  // namespace sumcache::filters
