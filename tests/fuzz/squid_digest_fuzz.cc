// Squid cache digest bodies as a node fetches them from a Squid peer
// (protocol/squid_digest.h). Properties: a digest that decodes re-encodes to
// the same bytes (the reserved header bytes aside, which Squid writes as zero
// and does not read); a header that passes is within the limit and consistent;
// the body decoder and the header decoder agree on every header fault.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "protocol/squid_digest.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache::protocol;

namespace {

// Enough for the seeds (the golden digest's mask is 109 bytes) and more.
constexpr std::uint32_t kLimit = 1 << 16;
constexpr std::size_t kReservedAt = 22;

bool is_body_fault(std::error_code ec) {
  return ec == SquidDigestErrc::truncated || ec == SquidDigestErrc::trailing_bytes ||
         ec == SquidDigestErrc::too_many_bits_set;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> body(data, size);

  // A limit that varies with the input: the header decoder must hold to it.
  const auto small_limit = static_cast<std::uint32_t>(size / 2);
  SquidDigestHeader small;
  if (!decode_squid_digest_header(body, small_limit, small)) {
    SUMCACHE_FUZZ_CHECK(small.mask_size <= small_limit);
    SUMCACHE_FUZZ_CHECK(small.mask_size > 0 && small.capacity > 0);
    SUMCACHE_FUZZ_CHECK(small.mask_size ==
                        squid_digest_mask_size(small.capacity, small.bits_per_entry));
    SUMCACHE_FUZZ_CHECK(small.hash_func_count == kSquidDigestHashCount);
    SUMCACHE_FUZZ_CHECK(small.required <= small.version && small.required <= kSquidDigestVersion);
  }

  SquidDigestHeader header;
  const std::error_code header_ec = decode_squid_digest_header(body, kLimit, header);
  SquidDigest digest;
  const std::error_code ec = SquidDigest::decode(body, kLimit, digest);
  if (header_ec) {
    SUMCACHE_FUZZ_CHECK(ec == header_ec);
    SUMCACHE_FUZZ_CHECK(digest.mask().empty());  // `out` untouched
    return 0;
  }
  SUMCACHE_FUZZ_CHECK(header.mask_size <= kLimit);
  if (ec) {
    SUMCACHE_FUZZ_CHECK(is_body_fault(ec));
    SUMCACHE_FUZZ_CHECK((ec == SquidDigestErrc::truncated) ==
                        (size < kSquidDigestHeaderBytes + header.mask_size));
    SUMCACHE_FUZZ_CHECK(digest.mask().empty());
    return 0;
  }

  SUMCACHE_FUZZ_CHECK(digest.header() == header);
  SUMCACHE_FUZZ_CHECK(digest.mask().size() == header.mask_size);
  SUMCACHE_FUZZ_CHECK(!digest.too_many_bits_set());
  SUMCACHE_FUZZ_CHECK(digest.used_percent() <= kSquidDigestMaxUsedPercent);
  std::string expected(reinterpret_cast<const char*>(data), size);
  std::fill(expected.begin() + kReservedAt, expected.begin() + kSquidDigestHeaderBytes, '\0');
  SUMCACHE_FUZZ_CHECK(digest.encode() == expected);

  // Probing with any key stays inside the mask; adding one keeps it a member.
  SquidStoreKey key{};
  std::copy_n(data + kSquidDigestHeaderBytes, std::min<std::size_t>(key.size(), header.mask_size),
              key.begin());
  static_cast<void>(digest.contains(key));
  digest.add(key);
  SUMCACHE_FUZZ_CHECK(digest.contains(key));
  return 0;
}
