#pragma once
// MurmurHash3 x64-128 (Austin Appleby's public-domain design, as Guava and
// bits-and-blooms use), written here only to compare its speed with XXH3-128
// in hash_bench.cc. The filters use XXH3-128 (docs/filters.md says why).

#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace sumcache::bench {

inline std::uint64_t murmur_fmix64(std::uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  k *= 0xc4ceb9fe1a85ec53ULL;
  k ^= k >> 33;
  return k;
}

struct Murmur128 {
  std::uint64_t h1;
  std::uint64_t h2;
};

inline Murmur128 murmur3_x64_128(std::string_view key, std::uint64_t seed) {
  constexpr std::uint64_t c1 = 0x87c37b91114253d5ULL;
  constexpr std::uint64_t c2 = 0x4cf5ad432745937fULL;
  const auto* p = reinterpret_cast<const unsigned char*>(key.data());
  const std::size_t blocks = key.size() / 16;
  std::uint64_t h1 = seed;
  std::uint64_t h2 = seed;
  for (std::size_t i = 0; i < blocks; ++i) {
    std::uint64_t k1;
    std::uint64_t k2;
    std::memcpy(&k1, p + i * 16, 8);  // x86-64 is little-endian, as the design assumes
    std::memcpy(&k2, p + i * 16 + 8, 8);
    k1 *= c1, k1 = std::rotl(k1, 31), k1 *= c2, h1 ^= k1;
    h1 = std::rotl(h1, 27), h1 += h2, h1 = h1 * 5 + 0x52dce729;
    k2 *= c2, k2 = std::rotl(k2, 33), k2 *= c1, h2 ^= k2;
    h2 = std::rotl(h2, 31), h2 += h1, h2 = h2 * 5 + 0x38495ab5;
  }
  const unsigned char* tail = p + blocks * 16;
  const std::size_t rest = key.size() & 15;
  std::uint64_t k1 = 0;
  std::uint64_t k2 = 0;
  for (std::size_t i = rest; i > 8; --i) k2 |= std::uint64_t{tail[i - 1]} << (8 * (i - 9));
  for (std::size_t i = std::min<std::size_t>(rest, 8); i > 0; --i) {
    k1 |= std::uint64_t{tail[i - 1]} << (8 * (i - 1));
  }
  if (rest > 8) k2 *= c2, k2 = std::rotl(k2, 33), k2 *= c1, h2 ^= k2;
  if (rest > 0) k1 *= c1, k1 = std::rotl(k1, 31), k1 *= c2, h1 ^= k1;
  h1 ^= key.size();
  h2 ^= key.size();
  h1 += h2;
  h2 += h1;
  h1 = murmur_fmix64(h1);
  h2 = murmur_fmix64(h2);
  h1 += h2;
  h2 += h1;
  return {h1, h2};
}

}  // namespace sumcache::bench
