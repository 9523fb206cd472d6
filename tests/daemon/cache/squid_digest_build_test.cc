// The Squid digest built from cache keys (daemon/cache/squid_digest_build.h):
// sized as Squid sizes its own (src/store_digest.cc, storeDigestCalcCap), and
// keyed as Squid keys a GET (storeKeyPublic over the canonical URL).

#include "daemon/cache/squid_digest_build.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "daemon/http/cache_key.h"

namespace sumcache::daemon {
namespace {

using protocol::SquidDigest;
using protocol::SquidStoreKey;

std::vector<SquidStoreKey> keys_of(std::size_t n, const std::string& prefix) {
  std::vector<SquidStoreKey> keys;
  for (std::size_t i = 0; i < n; ++i) {
    keys.push_back(squid_key_of(prefix + std::to_string(i)));
  }
  return keys;
}

// storeDigestCalcCap: one entry per stored entry...
TEST(SquidDigestCapacity, OneEntryPerStoredKey) {
  EXPECT_EQ(squid_digest_capacity(100000, 0), 100000u);
}

// ...at least 1 + stored bytes / store_avg_object_size (13 KB)...
TEST(SquidDigestCapacity, AtLeastTheStoredBytesOverTheAverageObjectSize) {
  EXPECT_EQ(squid_digest_capacity(1000, 100000 * kSquidAvgObjectBytes), 100001u);
}

// ...never below our floor, so that a few keys cannot fill a tiny mask...
TEST(SquidDigestCapacity, NeverBelowTheFloor) {
  EXPECT_EQ(squid_digest_capacity(0, 0), kMinSquidDigestCapacity);
  EXPECT_EQ(squid_digest_capacity(3, 0), kMinSquidDigestCapacity);
}

// ...and never past Squid's bound (bug 4534: capacity * bits + 7 < INT_MAX).
TEST(SquidDigestCapacity, AtMostWhatSquidCanHold) {
  const std::uint32_t cap = squid_digest_capacity(std::uint64_t{1} << 40, 0);
  EXPECT_EQ(cap, (0x7fffffffU - 8) / 5);
  EXPECT_LE(protocol::squid_digest_mask_size(cap, 5), protocol::kSquidDigestMaxMaskBytes);
}

TEST(SquidDigestBuild, HoldsEveryKeyWithSquidsHeader) {
  const auto keys = keys_of(5000, "http://example.com/object/");
  const SquidDigest digest = build_squid_digest(keys, 0);
  EXPECT_EQ(digest.header().capacity, 5000u);
  EXPECT_EQ(digest.header().count, 5000u);
  EXPECT_EQ(digest.header().del_count, 0u);
  EXPECT_EQ(digest.header().bits_per_entry, 5u);
  EXPECT_EQ(digest.header().hash_func_count, 4u);
  EXPECT_EQ(digest.header().mask_size, (5000u * 5 + 7) / 8);
  for (const auto& key : keys) EXPECT_TRUE(digest.contains(key));
  // k = 4 over 5 bits per entry: about 1 - e^(-4/5) = 55% of the bits set.
  EXPECT_FALSE(digest.too_many_bits_set());
  EXPECT_NEAR(digest.used_percent(), 55, 2);
}

// Squid measures false hits this way too: keys never added are claimed at
// about (1 - e^(-k n / m))^k = 9% (docs/interop.md).
TEST(SquidDigestBuild, FalseHitRateIsSquids) {
  const SquidDigest digest = build_squid_digest(keys_of(20000, "http://a.example/"), 0);
  int claimed = 0;
  for (const auto& key : keys_of(20000, "http://b.example/")) claimed += digest.contains(key);
  EXPECT_GT(claimed, 20000 * 6 / 100);
  EXPECT_LT(claimed, 20000 * 12 / 100);
}

TEST(SquidDigestBuild, EncodesWhatSquidsReceiverAccepts) {
  const SquidDigest digest = build_squid_digest(keys_of(300, "http://example.com/"), 0);
  const std::string body = digest.encode();
  SquidDigest decoded;
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(body.data());
  ASSERT_FALSE(
      SquidDigest::decode({bytes, body.size()}, protocol::kSquidDigestMaxMaskBytes, decoded));
  EXPECT_EQ(decoded.header(), digest.header());
}

TEST(SquidDigestBuild, AnEmptyStoreGivesAnEmptyDigestSquidAccepts) {
  const SquidDigest digest = build_squid_digest({}, 0);
  EXPECT_EQ(digest.header().count, 0u);
  EXPECT_EQ(digest.header().capacity, kMinSquidDigestCapacity);
  EXPECT_EQ(digest.bits_set(), 0u);
}

// A mask a few keys would fill past 65% is grown until Squid would take it.
TEST(SquidDigestBuild, NeverServesADigestSquidWouldRefuse) {
  for (std::size_t n = 1; n <= 200; ++n) {
    const auto keys = keys_of(n, "http://small.example/" + std::to_string(n) + "/");
    const SquidDigest digest = build_squid_digest(keys, 0);
    EXPECT_FALSE(digest.too_many_bits_set()) << n << " keys";
  }
}

// Our cache key is the URL Squid hashes for a GET: scheme and host lower-case,
// the default port left out (Squid's AnyP::Uri::absolute), the query kept.
TEST(SquidDigestKey, IsSquidsStoreKeyOfTheCanonicalUrl) {
  const auto uri = parse_absolute_uri("HTTP://WWW.Example.COM:80/a/b?c=D");
  ASSERT_TRUE(uri.ok());
  EXPECT_EQ(squid_key_of(cache_key(*uri)),
            protocol::squid_store_key("http://www.example.com/a/b?c=D"));
  const auto with_port = parse_absolute_uri("http://127.0.0.1:8080/x");
  ASSERT_TRUE(with_port.ok());
  EXPECT_EQ(squid_key_of(cache_key(*with_port)),
            protocol::squid_store_key("http://127.0.0.1:8080/x"));
}

}  // namespace
}  // namespace sumcache::daemon
