#pragma once
// Squid's Cache Digest (docs/protocol.md, "Squid cache digests"): a plain
// Bloom filter of a cache, k = 4 probes taken straight from the 128-bit MD5
// store key, served by Squid at kSquidDigestPath as a 128-byte big-endian
// header followed by the bit mask. Pure: no sockets, no clock.

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "protocol/squid_digest_error.h"

namespace sumcache::protocol {

inline constexpr std::uint16_t kSquidDigestVersion = 5;   // CacheDigestVer.current
inline constexpr std::uint16_t kSquidDigestRequired = 3;  // CacheDigestVer.required
inline constexpr std::size_t kSquidDigestHeaderBytes = 128;
inline constexpr unsigned kSquidDigestHashCount = 4;
inline constexpr unsigned kSquidDigestDefaultBitsPerEntry = 5;  // Squid's digest_bits_per_entry
inline constexpr unsigned kSquidDigestMaxUsedPercent = 65;      // above it Squid calls a digest useless
// The largest mask Squid 5.7 can build (CacheDigest::CalcMaskSize asserts
// capacity * bits_per_entry + 7 < INT_MAX): a bound on any receiver's limit, and
// it keeps mask_size * 8 bit positions within 32 bits.
inline constexpr std::uint32_t kSquidDigestMaxMaskBytes = (0x7fffffffU - 1) / 8;
inline constexpr const char* kSquidDigestPath = "/squid-internal-periodic/store_digest";
inline constexpr const char* kSquidDigestType = "application/cache-digest";

// The header's fields as Squid lays them out (StoreDigestCBlock), host order here.
// Squid declares them signed (short, int): a decoded header never has the top
// bit set in capacity, count, del_count or mask_size.
struct SquidDigestHeader {
  std::uint16_t version = kSquidDigestVersion;
  std::uint16_t required = kSquidDigestRequired;
  std::uint32_t capacity = 0;
  std::uint32_t count = 0;      // entries added
  std::uint32_t del_count = 0;  // deletions since the last rebuild (a Bloom filter cannot
                                // clear bits: Squid only counts them, and rebuilds hourly)
  std::uint32_t mask_size = 0;  // bytes of the mask that follows the header
  std::uint8_t bits_per_entry = kSquidDigestDefaultBitsPerEntry;
  std::uint8_t hash_func_count = kSquidDigestHashCount;
  friend bool operator==(const SquidDigestHeader&, const SquidDigestHeader&) = default;
};

// Squid's CacheDigest::CalcMaskSize: ceil(capacity * bits_per_entry / 8) bytes
// (computed in 64 bits: no overflow for any 32-bit capacity and 8-bit bits_per_entry).
std::uint64_t squid_digest_mask_size(std::uint64_t capacity, unsigned bits_per_entry);

// Squid's public store key for a GET of `url`: MD5 over the method's byte
// (Http::METHOD_GET = 1) followed by the URL as Squid writes it (storeKeyPublic).
using SquidStoreKey = std::array<std::uint8_t, 16>;
SquidStoreKey squid_store_key(std::string_view url);

// The four bit positions a key probes in a mask of `mask_bits` bits (> 0):
// each 32-bit word of the key, read big-endian, modulo mask_bits
// (cacheDigestHashKey). Bit b is bit (b % 8) of mask byte b / 8.
std::array<std::uint32_t, 4> squid_digest_positions(const SquidStoreKey& key,
                                                    std::uint32_t mask_bits);

// Parses and checks the 128-byte header exactly as Squid's receiver does,
// plus mask_size <= max_mask_bytes, before anything of the mask is read or
// allocated. Errors: truncated, version_unsupported, inconsistent_header,
// mask_size_mismatch, hash_count_unsupported, too_large.
std::error_code decode_squid_digest_header(std::span<const std::uint8_t> bytes,
                                           std::uint32_t max_mask_bytes, SquidDigestHeader& out);

// A digest: its header and its mask.
class SquidDigest {
 public:
  SquidDigest() = default;
  // An empty digest sized for `capacity` (> 0) entries; bits_per_entry in
  // 1..255 and squid_digest_mask_size(capacity, bits_per_entry) <=
  // kSquidDigestMaxMaskBytes (preconditions, asserted).
  explicit SquidDigest(std::uint32_t capacity,
                       unsigned bits_per_entry = kSquidDigestDefaultBitsPerEntry);

  void add(const SquidStoreKey& key);  // sets the key's four bits, counts it (up to INT32_MAX)
  bool contains(const SquidStoreKey& key) const;

  const SquidDigestHeader& header() const { return header_; }
  std::span<const std::uint8_t> mask() const { return mask_; }
  std::uint64_t bits_set() const;
  // Percent of the mask's bits set, rounded to nearest (ties to even, as rint
  // in Squid's xpercentInt): what Squid's cache manager reports as "util".
  unsigned used_percent() const;
  // Squid 5.7's peerDigestUseful, exactly: refused when usedMaskPercent (a
  // double, not rounded) > 65, i.e. bits_set * 100 > 65 * mask bits.
  bool too_many_bits_set() const;

  // The header then the mask: what Squid serves at kSquidDigestPath. The
  // header's reserved bytes (22..127) are zero, as Squid writes them.
  std::string encode() const;

  // The whole body: header checks as above, then exactly mask_size bytes
  // (truncated, trailing_bytes), then the 65% rule (too_many_bits_set), all
  // before the mask is copied. The reserved bytes are not checked (Squid does
  // not; its version pair is how a newer sender would use them) nor kept.
  // `out` is replaced only on success.
  static std::error_code decode(std::span<const std::uint8_t> bytes, std::uint32_t max_mask_bytes,
                                SquidDigest& out);

 private:
  SquidDigestHeader header_;
  std::vector<std::uint8_t> mask_;
};

}  // namespace sumcache::protocol
