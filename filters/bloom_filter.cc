#include "filters/bloom_filter.h"

#include <algorithm>
#include <bit>

#include "filters/byte_io.h"
#include "filters/filter_error.h"

namespace sumcache::filters {
namespace {

constexpr std::uint32_t kMagic = 0x46424353;  // "SCBF" little-endian
constexpr std::uint16_t kFormatVersion = 1;
// magic u32, version u16, hash id u8, reserved u8, k u32, reserved u32, seed u64, m u64
constexpr std::size_t kHeaderBytes = 32;
constexpr std::size_t kChecksumBytes = 8;

std::size_t words_for(std::uint64_t m) { return static_cast<std::size_t>((m + 63) / 64); }

}  // namespace

BloomFilter::BloomFilter(BloomParams params, Hasher hasher)
    : params_(params), hasher_(hasher), words_(words_for(params.m), 0) {}

Result<BloomFilter> BloomFilter::create(BloomParams params, Hasher hasher) {
  if (auto ec = validate(params)) return ec;
  return BloomFilter(params, hasher);
}

Result<BloomFilter> BloomFilter::for_capacity(std::uint64_t n, double p, Hasher hasher) {
  auto params = optimal_params(n, p);
  if (!params) return params.error();
  return create(*params, hasher);
}

void BloomFilter::add(const Hash128& h) {
  ProbeSequence probes(h, params_.m);
  for (std::uint32_t i = 0; i < params_.k; ++i) {
    const std::uint64_t bit = probes.next();
    words_[bit >> 6] |= std::uint64_t{1} << (bit & 63);
  }
}

bool BloomFilter::add_changed(const Hash128& h) {
  ProbeSequence probes(h, params_.m);
  std::uint64_t changed = 0;
  for (std::uint32_t i = 0; i < params_.k; ++i) {
    const std::uint64_t bit = probes.next();
    std::uint64_t& word = words_[bit >> 6];
    const std::uint64_t mask = std::uint64_t{1} << (bit & 63);
    changed |= ~word & mask;
    word |= mask;
  }
  return changed != 0;
}

bool BloomFilter::contains(const Hash128& h) const {
  // Branch-free: an absent key's first zero bit falls at a random probe, so an
  // early exit mispredicts; k independent loads overlap in the pipeline instead.
  ProbeSequence probes(h, params_.m);
  std::uint64_t all = 1;
  for (std::uint32_t i = 0; i < params_.k; ++i) {
    const std::uint64_t bit = probes.next();
    all &= words_[bit >> 6] >> (bit & 63);
  }
  return (all & 1) != 0;
}

std::error_code BloomFilter::union_with(const BloomFilter& other) {
  if (params_ != other.params_ || hasher_ != other.hasher_) return FilterErrc::parameter_mismatch;
  for (std::size_t i = 0; i < words_.size(); ++i) words_[i] |= other.words_[i];
  return {};
}

std::error_code BloomFilter::intersect_with(const BloomFilter& other) {
  if (params_ != other.params_ || hasher_ != other.hasher_) return FilterErrc::parameter_mismatch;
  for (std::size_t i = 0; i < words_.size(); ++i) words_[i] &= other.words_[i];
  return {};
}

void BloomFilter::clear() { std::fill(words_.begin(), words_.end(), 0); }

void BloomFilter::set_bit(std::uint64_t i, bool value) {
  const std::uint64_t mask = std::uint64_t{1} << (i & 63);
  if (value) {
    words_[i >> 6] |= mask;
  } else {
    words_[i >> 6] &= ~mask;
  }
}

std::uint64_t BloomFilter::count_set_bits() const {
  std::uint64_t total = 0;
  for (std::uint64_t w : words_) total += static_cast<std::uint64_t>(std::popcount(w));
  return total;
}

std::vector<std::uint8_t> BloomFilter::serialize() const {
  std::vector<std::uint8_t> out;
  out.reserve(kHeaderBytes + words_.size() * 8 + kChecksumBytes);
  put_le(out, kMagic);
  put_le(out, kFormatVersion);
  put_le(out, static_cast<std::uint8_t>(hasher_.id()));
  put_le(out, std::uint8_t{0});
  put_le(out, params_.k);
  put_le(out, std::uint32_t{0});
  put_le(out, hasher_.seed());
  put_le(out, params_.m);
  for (std::uint64_t w : words_) put_le(out, w);
  put_le(out, checksum64(out));
  return out;
}

Result<BloomFilter> BloomFilter::deserialize(std::span<const std::uint8_t> bytes,
                                             std::uint64_t max_bits) {
  ByteReader in(bytes);
  if (bytes.size() < kHeaderBytes + kChecksumBytes) return make_error_code(FilterErrc::truncated);
  if (in.le<std::uint32_t>() != kMagic) return make_error_code(FilterErrc::bad_magic);
  if (in.le<std::uint16_t>() != kFormatVersion) {
    return make_error_code(FilterErrc::unsupported_version);
  }
  const auto hash_id = in.le<std::uint8_t>();
  const auto reserved8 = in.le<std::uint8_t>();
  BloomParams params;
  params.k = in.le<std::uint32_t>();
  const auto reserved32 = in.le<std::uint32_t>();
  const auto seed = in.le<std::uint64_t>();
  params.m = in.le<std::uint64_t>();
  if (reserved8 != 0 || reserved32 != 0) return make_error_code(FilterErrc::inconsistent_header);
  if (!Hasher::known(hash_id)) return make_error_code(FilterErrc::unknown_hash);
  if (params.m > max_bits) return make_error_code(FilterErrc::too_large);
  if (auto ec = validate(params)) return ec;
  const std::size_t words = words_for(params.m);
  const std::size_t expected = kHeaderBytes + words * 8 + kChecksumBytes;
  if (bytes.size() < expected) return make_error_code(FilterErrc::truncated);
  if (bytes.size() > expected) return make_error_code(FilterErrc::inconsistent_header);
  if (checksum64(bytes.first(expected - kChecksumBytes)) !=
      ByteReader(bytes.subspan(expected - kChecksumBytes)).le<std::uint64_t>()) {
    return make_error_code(FilterErrc::checksum_mismatch);
  }
  auto hasher = Hasher::create(static_cast<HashId>(hash_id), seed);
  if (!hasher) return hasher.error();
  BloomFilter filter(params, *hasher);
  for (auto& w : filter.words_) w = in.le<std::uint64_t>();
  // Bits past m in the last word are never set by this code; set ones mean damage.
  if (params.m % 64 != 0 && (filter.words_.back() >> (params.m % 64)) != 0) {
    return make_error_code(FilterErrc::inconsistent_header);
  }
  return filter;
}

std::vector<BitChange> bit_differences(const BloomFilter& from, const BloomFilter& to) {
  std::vector<BitChange> out;
  const auto a = from.words();
  const auto b = to.words();
  for (std::size_t w = 0; w < a.size(); ++w) {
    for (std::uint64_t x = a[w] ^ b[w]; x != 0; x &= x - 1) {
      const std::uint64_t bit = static_cast<std::uint64_t>(std::countr_zero(x));
      out.push_back({w * 64 + bit, ((b[w] >> bit) & 1U) != 0});
    }
  }
  return out;
}

}  // namespace sumcache::filters
