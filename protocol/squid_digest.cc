#include "protocol/squid_digest.h"

#include <openssl/evp.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>

#include "filters/summary_directory.h"
#include "protocol/big_endian.h"

namespace sumcache::protocol {
namespace {

// Offsets of StoreDigestCBlock's fields (docs/protocol.md, "Squid cache
// digests"); bytes 22..127 are Squid's reserved_short and reserved[26].
constexpr std::size_t kCurrentAt = 0;
constexpr std::size_t kRequiredAt = 2;
constexpr std::size_t kCapacityAt = 4;
constexpr std::size_t kCountAt = 8;
constexpr std::size_t kDelCountAt = 12;
constexpr std::size_t kMaskSizeAt = 16;
constexpr std::size_t kBitsPerEntryAt = 20;
constexpr std::size_t kHashFuncCountAt = 21;

constexpr std::uint32_t kInt32Max = 0x7fffffffU;
constexpr std::uint16_t kInt16Max = 0x7fff;

// Squid reads the version pair as C shorts: one with the top bit set is negative.
int as_short(std::uint16_t value) {
  return value > kInt16Max ? static_cast<int>(value) - 0x10000 : static_cast<int>(value);
}

std::uint64_t count_bits(std::span<const std::uint8_t> mask) {
  std::uint64_t on = 0;
  for (const std::uint8_t byte : mask) on += static_cast<unsigned>(std::popcount(byte));
  return on;
}

// peerDigestUseful: usedMaskPercent() > 65.0. The exact comparison on integers
// agrees with Squid's double: a quotient above 65 is above it by at least
// 1/mask_bits, far more than a double's rounding error near 65.
bool over_used(std::uint64_t bits_on, std::uint64_t mask_bits) {
  return bits_on * 100 > std::uint64_t{kSquidDigestMaxUsedPercent} * mask_bits;
}

struct MdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

}  // namespace

std::uint64_t squid_digest_mask_size(std::uint64_t capacity, unsigned bits_per_entry) {
  // capacity < 2^32 and bits_per_entry < 2^8 in every caller here; the
  // division keeps the formula exact for any product that fits 64 bits.
  const std::uint64_t bits = capacity * bits_per_entry;
  return bits / 8 + (bits % 8 != 0 ? 1 : 0);
}

SquidStoreKey squid_store_key(std::string_view url) {
  // storeKeyPublic: MD5(method id byte, URL bytes); the default key scope adds
  // nothing. Http::METHOD_GET is 1 in Squid's MethodType.
  constexpr unsigned char kMethodGet = 1;
  SquidStoreKey key{};
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> ctx(EVP_MD_CTX_new());
  unsigned int length = 0;
  const bool ok = ctx != nullptr && EVP_DigestInit_ex(ctx.get(), EVP_md5(), nullptr) == 1 &&
                  EVP_DigestUpdate(ctx.get(), &kMethodGet, 1) == 1 &&
                  EVP_DigestUpdate(ctx.get(), url.data(), url.size()) == 1 &&
                  EVP_DigestFinal_ex(ctx.get(), key.data(), &length) == 1 && length == key.size();
  // MD5 from the default provider fails only when OpenSSL itself is broken
  // (out of memory, or a FIPS-only configuration): nothing a caller can act on.
  if (!ok) std::abort();
  return key;
}

std::array<std::uint32_t, 4> squid_digest_positions(const SquidStoreKey& key,
                                                    std::uint32_t mask_bits) {
  assert(mask_bits > 0);
  // One rule for the codec and the directory that probes held digests
  // (cacheDigestHashKey: each 32-bit word of the key read big-endian).
  return filters::squid_probe_positions(key, mask_bits);
}

std::error_code decode_squid_digest_header(std::span<const std::uint8_t> bytes,
                                           std::uint32_t max_mask_bytes, SquidDigestHeader& out) {
  if (bytes.size() < kSquidDigestHeaderBytes) return SquidDigestErrc::truncated;
  const std::uint8_t* p = bytes.data();
  SquidDigestHeader h;
  h.version = get_be16(p + kCurrentAt);
  h.required = get_be16(p + kRequiredAt);
  h.capacity = get_be32(p + kCapacityAt);
  h.count = get_be32(p + kCountAt);
  h.del_count = get_be32(p + kDelCountAt);
  h.mask_size = get_be32(p + kMaskSizeAt);
  h.bits_per_entry = p[kBitsPerEntryAt];
  h.hash_func_count = p[kHashFuncCountAt];

  // In peerDigestSetCBlock's order: the version pair both ways first...
  const int current = as_short(h.version);
  const int required = as_short(h.required);
  if (required > kSquidDigestVersion) return SquidDigestErrc::version_unsupported;
  if (current < kSquidDigestRequired) return SquidDigestErrc::version_unsupported;
  // ...then consistency. Squid's ints are signed: a field with the top bit set
  // is negative to it ("<= 0"). A negative required, count or del_count Squid
  // lets through; no Squid can send one, so we refuse it too.
  if (required > current || required < 0 || h.capacity == 0 || h.capacity > kInt32Max ||
      h.mask_size == 0 || h.mask_size > kInt32Max || h.count > kInt32Max ||
      h.del_count > kInt32Max || h.bits_per_entry == 0 || h.hash_func_count == 0)
    return SquidDigestErrc::inconsistent_header;
  if (h.mask_size != squid_digest_mask_size(h.capacity, h.bits_per_entry))
    return SquidDigestErrc::mask_size_mismatch;
  if (h.hash_func_count != kSquidDigestHashCount) return SquidDigestErrc::hash_count_unsupported;
  // Squid 5.7 has no limit of its own here (its CalcMaskSize asserts, which
  // stops the whole process): ours is the caller's, capped at what Squid builds.
  if (h.mask_size > std::min(max_mask_bytes, kSquidDigestMaxMaskBytes))
    return SquidDigestErrc::too_large;
  out = h;
  return {};
}

SquidDigest::SquidDigest(std::uint32_t capacity, unsigned bits_per_entry) {
  assert(capacity > 0 && bits_per_entry > 0 && bits_per_entry <= 0xff);
  const std::uint64_t mask_size = squid_digest_mask_size(capacity, bits_per_entry);
  assert(mask_size <= kSquidDigestMaxMaskBytes);
  header_.capacity = capacity;
  header_.mask_size = static_cast<std::uint32_t>(mask_size);
  header_.bits_per_entry = static_cast<std::uint8_t>(bits_per_entry);
  mask_.assign(mask_size, 0);
}

void SquidDigest::add(const SquidStoreKey& key) {
  assert(!mask_.empty());  // a default-constructed digest has no mask to set bits in
  for (const std::uint32_t bit : squid_digest_positions(key, header_.mask_size * 8U))
    mask_[bit / 8] = static_cast<std::uint8_t>(mask_[bit / 8] | (1U << (bit % 8)));
  // The wire's count is a signed 32-bit int.
  if (header_.count < kInt32Max) ++header_.count;
}

bool SquidDigest::contains(const SquidStoreKey& key) const {
  if (mask_.empty()) return false;
  for (const std::uint32_t bit : squid_digest_positions(key, header_.mask_size * 8U))
    if ((mask_[bit / 8] & (1U << (bit % 8))) == 0) return false;
  return true;
}

std::uint64_t SquidDigest::bits_set() const { return count_bits(mask_); }

unsigned SquidDigest::used_percent() const {
  const std::uint64_t bits = std::uint64_t{header_.mask_size} * 8;
  if (bits == 0) return 0;
  const std::uint64_t scaled = bits_set() * 100;
  std::uint64_t percent = scaled / bits;
  const std::uint64_t twice_rest = 2 * (scaled % bits);
  if (twice_rest > bits || (twice_rest == bits && percent % 2 == 1)) ++percent;
  return static_cast<unsigned>(percent);
}

bool SquidDigest::too_many_bits_set() const {
  return over_used(bits_set(), std::uint64_t{header_.mask_size} * 8);
}

std::string SquidDigest::encode() const {
  std::string out(kSquidDigestHeaderBytes + mask_.size(), '\0');
  char* p = out.data();
  put_be16(p + kCurrentAt, header_.version);
  put_be16(p + kRequiredAt, header_.required);
  put_be32(p + kCapacityAt, header_.capacity);
  put_be32(p + kCountAt, header_.count);
  put_be32(p + kDelCountAt, header_.del_count);
  put_be32(p + kMaskSizeAt, header_.mask_size);
  p[kBitsPerEntryAt] = static_cast<char>(header_.bits_per_entry);
  p[kHashFuncCountAt] = static_cast<char>(header_.hash_func_count);
  std::copy(mask_.begin(), mask_.end(), out.begin() + kSquidDigestHeaderBytes);
  return out;
}

std::error_code SquidDigest::decode(std::span<const std::uint8_t> bytes,
                                    std::uint32_t max_mask_bytes, SquidDigest& out) {
  SquidDigestHeader header;
  if (auto ec = decode_squid_digest_header(bytes, max_mask_bytes, header)) return ec;
  const auto body = bytes.subspan(kSquidDigestHeaderBytes);
  if (body.size() < header.mask_size) return SquidDigestErrc::truncated;
  if (body.size() > header.mask_size) return SquidDigestErrc::trailing_bytes;
  if (over_used(count_bits(body), std::uint64_t{header.mask_size} * 8))
    return SquidDigestErrc::too_many_bits_set;
  std::vector<std::uint8_t> mask(body.begin(), body.end());
  out.header_ = header;
  out.mask_ = std::move(mask);
  return {};
}

}  // namespace sumcache::protocol
