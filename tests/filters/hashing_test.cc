#include "filters/hashing.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "filters/filter_error.h"

namespace sumcache::filters {
namespace {

constexpr std::string_view kUrl = "http://www.example.com/index.html";

// Published vectors: a change of library or byte order breaks these first.
TEST(Hashing, Xxh3Of128EmptyMatchesPublishedVector) {
  const Hash128 h = xxh3_128("", 0);
  EXPECT_EQ(h.h1, 0x6001c324468d497fULL);  // low 64 bits
  EXPECT_EQ(h.h2, 0x99aa06d3014798d8ULL);  // high 64 bits
}

TEST(Hashing, Md5MatchesRfc1321VectorsAsLittleEndianWords) {
  // RFC 1321 A.5: MD5("") = d41d8cd98f00b204e9800998ecf8427e
  const Hash128 empty = md5_128("");
  EXPECT_EQ(empty.h1, 0x04b2008fd98c1dd4ULL);
  EXPECT_EQ(empty.h2, 0x7e42f8ec980980e9ULL);
  // MD5("abc") = 900150983cd24fb0d6963f7d28e17f72
  const Hash128 abc = md5_128("abc");
  EXPECT_EQ(abc.h1, 0xb04fd23c98500190ULL);
  EXPECT_EQ(abc.h2, 0x727fe1287d3f96d6ULL);
}

// Pinned vectors for a URL key: peers must agree on these forever.
TEST(Hashing, PinnedUrlVectors) {
  const Hash128 x = xxh3_128(kUrl, 0);
  EXPECT_EQ(x.h1, 0x3031fd339025a61cULL);
  EXPECT_EQ(x.h2, 0x8d9edb3a3c5575e6ULL);
  const Hash128 seeded = xxh3_128(kUrl, 42);
  EXPECT_EQ(seeded.h1, 0x42a65ec9b99e90ecULL);
  EXPECT_NE(seeded, x);
}

TEST(Hashing, PinnedProbePositions) {
  ProbeSequence probes(xxh3_128(kUrl, 0), 1'000'003);
  std::vector<std::uint64_t> got;
  for (int i = 0; i < 8; ++i) got.push_back(probes.next());
  EXPECT_EQ(got, (std::vector<std::uint64_t>{188263, 741470, 294674, 847880, 401084, 954291, 507495, 60699}));
}

TEST(Hashing, HasherDispatchesOnId) {
  auto md5 = Hasher::create(HashId::md5);
  ASSERT_TRUE(md5.ok());
  EXPECT_EQ((*md5)(kUrl), md5_128(kUrl));
  auto xxh = Hasher::create(HashId::xxh3_128, 7);
  ASSERT_TRUE(xxh.ok());
  EXPECT_EQ((*xxh)(kUrl), xxh3_128(kUrl, 7));
  EXPECT_EQ(Hasher{}(kUrl), xxh3_128(kUrl, 0));
}

TEST(Hashing, Md5RejectsSeedAndUnknownIdsAreRejected) {
  EXPECT_EQ(Hasher::create(HashId::md5, 1).error(), FilterErrc::invalid_seed);
  EXPECT_EQ(Hasher::create(static_cast<HashId>(9)).error(), FilterErrc::unknown_hash);
  EXPECT_FALSE(Hasher::known(0));
  EXPECT_TRUE(Hasher::known(1));
  EXPECT_TRUE(Hasher::known(2));
}

TEST(Hashing, ReduceStaysInRangeAndCoversIt) {
  EXPECT_EQ(reduce(0, 10), 0U);
  EXPECT_EQ(reduce(~0ULL, 10), 9U);
  EXPECT_EQ(reduce(~0ULL, 1), 0U);
  std::set<std::uint64_t> seen;
  for (std::uint64_t i = 0; i < 1000; ++i) seen.insert(reduce(xxh3_128(std::to_string(i), 0).h1, 7));
  EXPECT_EQ(seen.size(), 7U);
}

TEST(Hashing, ProbesStayInRangeEvenForTinyFilters) {
  for (std::uint64_t m : {1ULL, 2ULL, 3ULL, 64ULL, 65ULL}) {
    ProbeSequence probes(xxh3_128(kUrl, 0), m);
    for (int i = 0; i < 32; ++i) EXPECT_LT(probes.next(), m);
  }
}

}  // namespace
}  // namespace sumcache::filters
