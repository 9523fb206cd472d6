#include "tests/support/deterministic_body.h"

#include "filters/hashing.h"

namespace sumcache::testing {

namespace {

// splitmix64 (Steele, Lea and Flood, OOPSLA 2014): a strong mix of a counter,
// which is all random access needs.
std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
static_assert(kAlphabet.size() == 64);

}  // namespace

std::uint64_t body_key(std::string_view path, std::string_view seed) {
  // The project's hash (deterministic across processes) over path, NUL, seed: the
  // separator keeps ("a", "bc") and ("ab", "c") apart.
  const filters::Hasher hasher = filters::Hasher::create(filters::HashId::xxh3_128).value();
  std::string key(path);
  key += '\0';
  key += seed;
  return hasher(key).h1;
}

void fill_body(std::uint64_t key, std::uint64_t offset, std::span<char> out) {
  // Byte i is 6 bits of word i / 8, word w being splitmix64(key + w).
  for (std::size_t j = 0; j < out.size(); ++j) {
    const std::uint64_t i = offset + j;
    const std::uint64_t word = splitmix64(key + i / 8);
    out[j] = kAlphabet[(word >> (8 * (i % 8))) & 63];
  }
}

std::string deterministic_body(std::string_view path, std::string_view seed, std::uint64_t size) {
  std::string body(size, '\0');
  fill_body(body_key(path, seed), 0, body);
  return body;
}

}  // namespace sumcache::testing
