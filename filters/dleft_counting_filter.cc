#include "filters/dleft_counting_filter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "filters/filter_error.h"
#include "filters/filter_params.h"

namespace sumcache::filters {
namespace {

std::uint64_t low_bits(std::uint32_t width) {
  return width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
}

__extension__ using U128 = unsigned __int128;

U128 low_bits128(std::uint32_t width) { return width >= 128 ? ~U128{0} : (U128{1} << width) - 1; }

int countr_zero128(U128 x) {
  const auto low = static_cast<std::uint64_t>(x);
  return low != 0 ? std::countr_zero(low)
                  : 64 + std::countr_zero(static_cast<std::uint64_t>(x >> 64));
}

int popcount128(U128 x) {
  return std::popcount(static_cast<std::uint64_t>(x)) +
         std::popcount(static_cast<std::uint64_t>(x >> 64));
}

// MurmurHash3's 64-bit finalizer: every input bit reaches every output bit.
std::uint64_t fmix64(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// One salt per pair of subtables (multiples of the golden ratio: no two
// alike, none zero).
constexpr std::uint64_t pair_salt(std::uint32_t pair) {
  return (std::uint64_t{pair} + 1) * 0x9E3779B97F4A7C15ULL;
}

// Subtables 2j and 2j + 1 shift a remainder's buckets by the high and the low
// half of one mix of it, each half mapped to [0, B) by multiply-shift (B <= 2^32).
std::uint64_t shift_of(std::uint64_t mix, std::uint32_t subtable, std::uint64_t buckets) {
  const std::uint64_t half = (subtable & 1) != 0 ? mix & 0xFFFFFFFFULL : mix >> 32;
  return (half * buckets) >> 32;
}

}  // namespace

std::error_code validate(const DleftParams& params) {
  if (params.subtables < 1 || params.subtables > kMaxSubtables) return FilterErrc::invalid_hashes;
  if (params.buckets < 1 || params.cells_per_bucket < 1 ||
      params.cells_per_bucket > kMaxCellsPerBucket || params.remainder_bits < 1 ||
      params.remainder_bits > kMaxRemainderBits || params.counter_bits < 1 ||
      params.counter_bits > kMaxCounterBits) {
    return FilterErrc::invalid_bits;
  }
  if (params.buckets > kMaxBuckets) return FilterErrc::size_overflow;
  // At most 8 * 2^32 * 64 * 40 < 2^47: the product cannot wrap.
  const std::uint64_t bucket_bits =
      (std::uint64_t{params.cells_per_bucket} * (params.remainder_bits + params.counter_bits) + 7) /
      8 * 8;
  const std::uint64_t bits = std::uint64_t{params.subtables} * params.buckets * bucket_bits;
  if (bits > kMaxBits) return FilterErrc::size_overflow;
  return {};
}

double expected_fpr(const DleftParams& params, std::uint64_t n) {
  const double universe = static_cast<double>(params.buckets) *
                          std::ldexp(1.0, static_cast<int>(params.remainder_bits));
  return -std::expm1(static_cast<double>(n) * std::log1p(-1.0 / universe));
}

Result<DleftParams> dleft_params(std::uint64_t n, double p) {
  if (n == 0) return make_error_code(FilterErrc::invalid_entries);
  if (!(p > 0.0 && p < 1.0)) return make_error_code(FilterErrc::invalid_fpr);  // NaN fails too
  DleftParams params;
  const std::uint64_t keys_per_bucket_row = std::uint64_t{params.subtables} * kDleftLoadPerBucket;
  params.buckets = n / keys_per_bucket_row + (n % keys_per_bucket_row != 0 ? 1 : 0);
  if (params.buckets > kMaxBuckets) return make_error_code(FilterErrc::size_overflow);
  for (std::uint32_t r = 1; r <= kMaxRemainderBits; ++r) {
    params.remainder_bits = r;
    if (expected_fpr(params, n) <= p) {
      if (auto ec = validate(params)) return ec;
      return params;
    }
  }
  return make_error_code(FilterErrc::invalid_fpr);  // below what 32-bit remainders reach
}

DleftCountingFilter::DleftCountingFilter(DleftParams params, Hasher hasher)
    : params_(params),
      hasher_(hasher),
      cell_bits_(params.remainder_bits + params.counter_bits),
      // One group if the bucket fits 128 bits; else groups of at most 120
      // bits, which a 16-byte load at any bit of a byte still holds whole.
      group_cells_(params.cells_per_bucket * cell_bits_ <= 128 ? params.cells_per_bucket
                                                               : 120 / cell_bits_),
      groups_((params.cells_per_bucket + group_cells_ - 1) / group_cells_),
      // Whole bytes (no padding at 8 cells per bucket), so that every bucket
      // starts on a byte and a one-group bucket is one unaligned 16-byte load.
      bucket_bits_((std::uint64_t{params.cells_per_bucket} * cell_bits_ + 7) / 8 * 8),
      counter_mask_(low_bits(params.counter_bits)),
      max_count_(static_cast<std::uint32_t>(counter_mask_)) {
  const auto lanes = [&](std::uint32_t count) {
    Lanes l;
    const std::uint32_t c = params_.counter_bits;
    for (std::uint32_t j = 0; j < count; ++j) {
      const std::uint32_t at = j * cell_bits_;
      l.counts |= U128{counter_mask_} << at;
      l.one |= U128{1} << at;
      l.above_count |= U128{1} << (at + c);
      l.tops |= U128{1} << (at + cell_bits_ - 1);
      l.rem_low |= U128{low_bits(params_.remainder_bits - 1)} << (at + c);
      l.below_top |= U128{low_bits(cell_bits_ - 1)} << at;
    }
    l.cells = low_bits128(count * cell_bits_);
    l.count = count;
    return l;
  };
  full_ = lanes(group_cells_);
  const std::uint32_t last_cells = params.cells_per_bucket - (groups_ - 1) * group_cells_;
  last_ = lanes(last_cells);
  // 57 bits: what an 8-byte load holds past a shift of up to 7.
  short_tail_ = groups_ > 1 && last_cells * cell_bits_ <= 57;
  const std::uint64_t bits = std::uint64_t{params.subtables} * params.buckets * bucket_bits_;
  // The spare words let read_group() load three words wherever a group starts.
  words_.assign(static_cast<std::size_t>((bits + 63) / 64 + 2), 0);
}

Result<DleftCountingFilter> DleftCountingFilter::create(DleftParams params, Hasher hasher) {
  if (auto ec = validate(params)) return ec;
  return DleftCountingFilter(params, hasher);
}

Result<DleftCountingFilter> DleftCountingFilter::for_capacity(std::uint64_t n, double p,
                                                              Hasher hasher) {
  auto params = dleft_params(n, p);
  if (!params) return params.error();
  return create(*params, hasher);
}

std::uint64_t DleftCountingFilter::read_bits(std::uint64_t bit, std::uint32_t width) const {
  const std::uint64_t* const w = words_.data() + (bit >> 6);
  const unsigned off = static_cast<unsigned>(bit & 63);
  // Shifting by 1 then 63 - off is 0 when off == 0, where a shift by 64 is undefined.
  const std::uint64_t v = (w[0] >> off) | ((w[1] << 1) << (63 - off));
  return v & low_bits(width);
}

// The words are read as bytes: on a little-endian machine byte j of the array
// holds bits 8j to 8j + 7, as the word layout says.
static_assert(std::endian::native == std::endian::little);

[[gnu::always_inline]] inline DleftCountingFilter::U128 DleftCountingFilter::read_bucket(
    std::uint64_t bit) const {
  const auto* const bytes = reinterpret_cast<const unsigned char*>(words_.data()) + (bit >> 3);
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  std::memcpy(&low, bytes, sizeof low);
  std::memcpy(&high, bytes + 8, sizeof high);
  return U128{high} << 64 | low;
}

// Group g of a bucket: its first group starts on the bucket's byte, later ones
// within a byte of their 16-byte load.
[[gnu::always_inline]] inline DleftCountingFilter::U128 DleftCountingFilter::read_group(
    std::uint64_t bucket_bit, std::uint32_t group) const {
  if (group == 0) return read_bucket(bucket_bit);
  const std::uint64_t bit = bucket_bit + std::uint64_t{group} * group_cells_ * cell_bits_;
  return read_bucket(bit & ~std::uint64_t{7}) >> (bit & 7);
}

void DleftCountingFilter::write_bits(std::uint64_t bit, std::uint32_t width, std::uint64_t value) {
  std::uint64_t* const w = words_.data() + (bit >> 6);
  const unsigned off = static_cast<unsigned>(bit & 63);
  const std::uint64_t mask = low_bits(width);
  w[0] = (w[0] & ~(mask << off)) | (value << off);
  if (off + width > 64) {
    const unsigned spill = 64 - off;
    w[1] = (w[1] & ~(mask >> spill)) | (value >> spill);
  }
}

// Subtable i's permutation of the true fingerprint (q, remainder): the bucket
// is q shifted by an amount that depends on the remainder alone, and the
// remainder is kept. Given (bucket, remainder) the shift is known, hence q:
// each subtable maps fingerprints to (bucket, remainder) one to one, so a cell
// can only ever match keys of its own fingerprint (docs/filters_dleft.md).
std::uint64_t DleftCountingFilter::bucket_index(std::uint64_t q, std::uint64_t remainder,
                                                std::uint32_t i) const {
  const std::uint64_t b = q + shift_of(fmix64(remainder + pair_salt(i / 2)), i, params_.buckets);
  return b >= params_.buckets ? b - params_.buckets : b;
}

[[gnu::always_inline]] inline DleftCountingFilter::Probe DleftCountingFilter::probe(
    const Hash128& h, std::uint32_t d) const {
  Probe p;
  const std::uint64_t q = reduce(h.h1, params_.buckets);
  p.remainder = h.h2 >> (64 - params_.remainder_bits);
  std::uint64_t mix = 0;
  for (std::uint32_t i = 0; i < d; ++i) {
    if ((i & 1) == 0) mix = fmix64(p.remainder + pair_salt(i / 2));
    std::uint64_t b = q + shift_of(mix, i, params_.buckets);
    b = b >= params_.buckets ? b - params_.buckets : b;
    p.bucket_bits[i] = (std::uint64_t{i} * params_.buckets + b) * bucket_bits_;
    // Every candidate's line is requested before any is read, so that the
    // misses overlap.
    __builtin_prefetch(words_.data() + (p.bucket_bits[i] >> 6));
    __builtin_prefetch(words_.data() + ((p.bucket_bits[i] + bucket_bits_ - 1) >> 6));
  }
  return p;
}

// SWAR tests on one group x of cells (counter in the low c bits of each,
// remainder above; Warren, Hacker's Delight, 6-1 "find the first 0-byte",
// for any field width). For a field f of a cell and `low` its bits but the
// top one, the top bit of ((f & low) + low) | f is set exactly when f is
// nonzero, and nothing carries out of the cell. Applied to:
// - the counter, with the sum's carry landing just above it: the cell is in use;
// - z = x ^ pattern, where pattern holds the remainder in every cell with
//   counter 0: z is nonzero and its remainder bits are zero exactly when the
//   cell is in use and holds the remainder.
DleftCountingFilter::Pattern DleftCountingFilter::pattern_of(std::uint64_t remainder) const {
  const U128 cell = U128{remainder} << params_.counter_bits;
  return {cell * full_.one, cell * last_.one};
}

[[gnu::always_inline]] inline DleftCountingFilter::U128 DleftCountingFilter::match_bits(
    U128 x, const Lanes& l, U128 pattern) {
  const U128 z = x ^ pattern;
  const U128 nonzero = ((z & l.below_top) + l.below_top) | z;
  const U128 remainder_differs = ((z & l.rem_low) + l.rem_low) | z;
  return nonzero & ~remainder_differs & l.tops;
}

[[gnu::always_inline]] inline DleftCountingFilter::GroupBits DleftCountingFilter::group_bits(
    std::uint64_t bucket_bit, std::uint32_t group, const Pattern& pattern) const {
  const Lanes& l = lanes_of(group);
  const U128 x = read_group(bucket_bit, group) & l.cells;
  GroupBits bits;
  bits.nonzero = ((x & l.counts) + l.counts) & l.above_count;
  bits.match = match_bits(x, l, group + 1 == groups_ ? pattern.last : pattern.full);
  bits.empty = ~bits.nonzero & l.above_count;
  return bits;
}

DleftCountingFilter::Scan DleftCountingFilter::scan(std::uint64_t bucket_bit,
                                                    std::uint64_t remainder) const {
  Scan s;
  const Pattern pattern = pattern_of(remainder);
  const auto cell_of = [&](std::uint32_t group, U128 lane_bits) {
    return static_cast<std::int32_t>(
        group * group_cells_ + static_cast<std::uint32_t>(countr_zero128(lane_bits)) / cell_bits_);
  };
  for (std::uint32_t g = 0; g < groups_; ++g) {
    const GroupBits bits = group_bits(bucket_bit, g, pattern);
    s.load += static_cast<std::uint32_t>(popcount128(bits.nonzero));
    if (bits.match != 0 && s.match < 0) s.match = cell_of(g, bits.match);
    if (bits.empty != 0 && s.empty < 0) s.empty = cell_of(g, bits.empty);
  }
  return s;
}

std::error_code DleftCountingFilter::add(const Hash128& h) {
  const Probe p = probe(h, params_.subtables);
  std::uint32_t best = 0;
  Scan best_scan;
  best_scan.load = params_.cells_per_bucket + 1;
  for (std::uint32_t i = 0; i < params_.subtables; ++i) {
    const Scan s = scan(p.bucket_bits[i], p.remainder);
    if (s.match >= 0) {
      // At most one cell per fingerprint among its candidates: count it there.
      const std::uint64_t bit = p.bucket_bits[i] + static_cast<std::uint64_t>(s.match) * cell_bits_;
      const std::uint64_t cell = read_bits(bit, cell_bits_);
      const std::uint64_t count = cell & counter_mask_;
      if (count == max_count_) return {};  // saturated: it has lost count already
      write_bits(bit, cell_bits_, cell + 1);
      ++size_;
      if (count + 1 == max_count_) ++saturated_;
      return {};
    }
    if (s.load < best_scan.load) {  // strictly less: the leftmost wins ties
      best = i;
      best_scan = s;
    }
  }
  if (best_scan.empty < 0) {
    ++refused_adds_;
    return FilterErrc::bucket_overflow;
  }
  const std::uint64_t bit =
      p.bucket_bits[best] + static_cast<std::uint64_t>(best_scan.empty) * cell_bits_;
  write_bits(bit, cell_bits_, (p.remainder << params_.counter_bits) | 1);
  ++size_;
  ++occupied_;
  if (max_count_ == 1) ++saturated_;
  return {};
}

std::error_code DleftCountingFilter::remove(const Hash128& h) {
  const Probe p = probe(h, params_.subtables);
  for (std::uint32_t i = 0; i < params_.subtables; ++i) {
    const Scan s = scan(p.bucket_bits[i], p.remainder);
    if (s.match < 0) continue;
    const std::uint64_t bit = p.bucket_bits[i] + static_cast<std::uint64_t>(s.match) * cell_bits_;
    const std::uint64_t cell = read_bits(bit, cell_bits_);
    const std::uint64_t count = cell & counter_mask_;
    // A saturated counter no longer knows how many keys share its cell:
    // counting it down could empty the cell while keys remain, a false negative.
    if (count == max_count_) return {};
    write_bits(bit, cell_bits_, count == 1 ? 0 : cell - 1);
    --size_;
    if (count == 1) --occupied_;
    return {};
  }
  ++refused_removes_;
  return FilterErrc::remove_underflow;
}

// No early exit: an absent key must see all d buckets anyway, and a branch
// per bucket would wait on its cache miss. Given d and the groups per bucket
// as constants (the defaults: d = 4, one group up to 16-bit cells, two up to
// 30-bit ones), the compiler interleaves the buckets' work.
[[gnu::always_inline]] inline bool DleftCountingFilter::contains_in(const Hash128& h,
                                                                    std::uint32_t d,
                                                                    std::uint32_t groups) const {
  const Probe p = probe(h, d);
  const Pattern pattern = pattern_of(p.remainder);
  U128 found = 0;
  for (std::uint32_t i = 0; i < d; ++i) {
    for (std::uint32_t g = 0; g < groups; ++g) {
      const bool last = g + 1 == groups;
      if (last && g > 0 && short_tail_) {
        // A last group of at most 57 bits: 64-bit arithmetic, half the work.
        const std::uint64_t bit = p.bucket_bits[i] + std::uint64_t{g} * group_cells_ * cell_bits_;
        std::uint64_t x = 0;
        std::memcpy(&x, reinterpret_cast<const unsigned char*>(words_.data()) + (bit >> 3), 8);
        x >>= bit & 7;
        const auto low64 = [](U128 v) { return static_cast<std::uint64_t>(v); };
        const std::uint64_t z = x ^ low64(pattern.last);
        const std::uint64_t nonzero = ((z & low64(last_.below_top)) + low64(last_.below_top)) | z;
        const std::uint64_t differs = ((z & low64(last_.rem_low)) + low64(last_.rem_low)) | z;
        found |= nonzero & ~differs & low64(last_.tops);
        continue;
      }
      const Lanes& l = last ? last_ : full_;
      // The bits past the group do not matter: every mask lies within its cells.
      const U128 x = read_group(p.bucket_bits[i], g);
      found |= match_bits(x, l, last ? pattern.last : pattern.full);
    }
  }
  return found != 0;
}

bool DleftCountingFilter::contains(const Hash128& h) const {
  if (params_.subtables == 4 && groups_ == 1) return contains_in(h, 4, 1);
  if (params_.subtables == 4 && groups_ == 2) return contains_in(h, 4, 2);
  return contains_in(h, params_.subtables, groups_);
}

std::uint32_t DleftCountingFilter::count(const Hash128& h) const {
  const Probe p = probe(h, params_.subtables);
  for (std::uint32_t i = 0; i < params_.subtables; ++i) {
    const Scan s = scan(p.bucket_bits[i], p.remainder);
    if (s.match < 0) continue;
    const std::uint64_t bit = p.bucket_bits[i] + static_cast<std::uint64_t>(s.match) * cell_bits_;
    return static_cast<std::uint32_t>(read_bits(bit, cell_bits_) & counter_mask_);
  }
  return 0;
}

std::uint64_t DleftCountingFilter::fingerprint(const Hash128& h) const {
  return (reduce(h.h1, params_.buckets) << params_.remainder_bits) |
         (h.h2 >> (64 - params_.remainder_bits));
}

std::uint64_t DleftCountingFilter::bucket_of(const Hash128& h, std::uint32_t subtable) const {
  return bucket_index(reduce(h.h1, params_.buckets), h.h2 >> (64 - params_.remainder_bits),
                      subtable);
}

std::uint32_t DleftCountingFilter::bucket_load(std::uint32_t subtable, std::uint64_t bucket) const {
  return scan((std::uint64_t{subtable} * params_.buckets + bucket) * bucket_bits_, 0).load;
}

double DleftCountingFilter::expected_fpr() const {
  const double universe = static_cast<double>(params_.buckets) *
                          std::ldexp(1.0, static_cast<int>(params_.remainder_bits));
  return static_cast<double>(occupied_) / universe;
}

}  // namespace sumcache::filters
