#pragma once
// One 128-bit hash per key, and the k probe positions derived from it.
//
// Every node of a cluster must map a key to the same bits, so the hash is
// deterministic across processes and machines: no random seeds, byte order
// fixed (little-endian words of the digest). Known-answer vectors in
// tests/filters/hashing_test.cc pin it.

#include <cstdint>
#include <string_view>

#include "filters/result.h"

namespace sumcache::filters {

// The wire value of each hash; never renumber.
enum class HashId : std::uint8_t {
  xxh3_128 = 1,  // XXH3 128-bit (libxxhash), the default: fast and well mixed
  md5 = 2,       // MD5 (OpenSSL), as Squid's cache digests use; takes no seed
};

struct Hash128 {
  std::uint64_t h1 = 0;
  std::uint64_t h2 = 0;
  friend bool operator==(const Hash128&, const Hash128&) = default;
};

// A hash function with its seed; two filters agree on keys iff their Hashers are equal.
class Hasher {
 public:
  Hasher() = default;
  static Result<Hasher> create(HashId id, std::uint64_t seed = 0);
  static bool known(std::uint8_t id);

  Hash128 operator()(std::string_view key) const;
  HashId id() const { return id_; }
  std::uint64_t seed() const { return seed_; }
  friend bool operator==(const Hasher&, const Hasher&) = default;

 private:
  Hasher(HashId id, std::uint64_t seed) : id_(id), seed_(seed) {}
  HashId id_ = HashId::xxh3_128;
  std::uint64_t seed_ = 0;
};

Hash128 xxh3_128(std::string_view key, std::uint64_t seed);
Hash128 md5_128(std::string_view key);

// Maps a well-mixed 64-bit value to [0, range) without `%` and without
// modulo bias beyond 2^-64 (Lemire's multiply-shift).
inline std::uint64_t reduce(std::uint64_t x, std::uint64_t range) {
  __extension__ using U128 = unsigned __int128;  // GCC and Clang; -Wpedantic otherwise objects
  return static_cast<std::uint64_t>((static_cast<U128>(x) * range) >> 64);
}

// Enhanced double hashing (Kirsch and Mitzenmacher 2006; Dillinger and
// Manolios 2004): probe i is x_i with x_0 = h1, y_0 = h2,
// x_{i+1} = x_i + y_i, y_{i+1} = y_i + (i + 1), all mod 2^64, each reduced to
// [0, m). The cubic term keeps probes apart when h2 is small.
class ProbeSequence {
 public:
  ProbeSequence(const Hash128& h, std::uint64_t m) : x_(h.h1), y_(h.h2), m_(m) {}
  std::uint64_t next() {
    const std::uint64_t position = reduce(x_, m_);
    x_ += y_;
    y_ += ++i_;
    return position;
  }

 private:
  std::uint64_t x_;
  std::uint64_t y_;
  std::uint64_t m_;
  std::uint64_t i_ = 0;
};

}  // namespace sumcache::filters
