#include "filters/hashing.h"

#include <openssl/evp.h>
#include <xxhash.h>

#include <cstdio>
#include <cstdlib>

#include "filters/filter_error.h"

namespace sumcache::filters {
namespace {

std::uint64_t load_le64(const unsigned char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

}  // namespace

Result<Hasher> Hasher::create(HashId id, std::uint64_t seed) {
  if (!known(static_cast<std::uint8_t>(id))) return make_error_code(FilterErrc::unknown_hash);
  if (id == HashId::md5 && seed != 0) return make_error_code(FilterErrc::invalid_seed);
  return Hasher(id, seed);
}

bool Hasher::known(std::uint8_t id) {
  return id == static_cast<std::uint8_t>(HashId::xxh3_128) ||
         id == static_cast<std::uint8_t>(HashId::md5);
}

Hash128 Hasher::operator()(std::string_view key) const {
  return id_ == HashId::md5 ? md5_128(key) : xxh3_128(key, seed_);
}

Hash128 xxh3_128(std::string_view key, std::uint64_t seed) {
  const XXH128_hash_t h = XXH3_128bits_withSeed(key.data(), key.size(), seed);
  return {h.low64, h.high64};
}

Hash128 md5_128(std::string_view key) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  // MD5 over memory fails only when allocation fails; a wrong hash would make
  // peers disagree silently, so that is fatal.
  if (EVP_Digest(key.data(), key.size(), digest, &length, EVP_md5(), nullptr) != 1 ||
      length != 16) {
    std::fputs("sumcache: MD5 digest failed\n", stderr);
    std::abort();
  }
  return {load_le64(digest), load_le64(digest + 8)};
}

}  // namespace sumcache::filters
