// The Squid cache digest codec against what a real Squid 5.7 sent
// (tests/protocol/golden/squid/, captured by capture.py there; docs/protocol.md,
// "Squid cache digests"): Squid's store keys, its digest's header and mask,
// and its own report of that digest.

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "protocol/squid_digest.h"

namespace sumcache::protocol {
namespace {

const std::filesystem::path kDir = std::filesystem::path(SUMCACHE_PROTOCOL_GOLDEN_DIR) / "squid";

std::string read_file(const std::string& name) {
  std::ifstream in(kDir / name, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::span<const std::uint8_t> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

std::string hex(const SquidStoreKey& key) {
  std::string out;
  char byte[3];
  for (const std::uint8_t b : key) {
    std::snprintf(byte, sizeof byte, "%02X", b);
    out += byte;
  }
  return out;
}

// store.log's "KEY URL" pairs, as capture.py kept them.
std::vector<std::pair<std::string, std::string>> store_keys() {
  std::vector<std::pair<std::string, std::string>> pairs;
  std::istringstream in(read_file("store_keys.txt"));
  std::string key;
  std::string url;
  while (in >> key >> url) pairs.emplace_back(key, url);
  return pairs;
}

// The number after `label` in Squid's store_digest report, e.g. "on:" in
// "bits: per entry: 5 on: 474 capacity: 872 util: 54%"; -1 if absent.
long report_number(const std::string& line_start, const std::string& label) {
  std::istringstream in(read_file("store_digest.report"));
  for (std::string line; std::getline(in, line);) {
    if (line.find(line_start) == std::string::npos) continue;
    const auto at = line.find(label);
    if (at == std::string::npos) continue;
    return std::stol(line.substr(at + label.size()));
  }
  return -1;
}

SquidDigest golden_digest() {
  SquidDigest digest;
  EXPECT_FALSE(SquidDigest::decode(as_bytes(read_file("store_digest.bin")), 1 << 20, digest));
  return digest;
}

TEST(SquidDigestGolden, StoreKeyEqualsSquidsForEveryLoggedUrl) {
  const auto pairs = store_keys();
  ASSERT_GE(pairs.size(), 100u) << "run tests/protocol/golden/squid/capture.py";
  for (const auto& [key, url] : pairs) EXPECT_EQ(hex(squid_store_key(url)), key) << url;
}

TEST(SquidDigestGolden, DecodesWithTheHeaderSquidReports) {
  const std::string body = read_file("store_digest.bin");
  SquidDigestHeader header;
  ASSERT_FALSE(decode_squid_digest_header(as_bytes(body), 1 << 20, header));
  EXPECT_EQ(header.version, 5);
  EXPECT_EQ(header.required, 3);
  EXPECT_EQ(header.hash_func_count, 4);
  EXPECT_EQ(header.mask_size, report_number("digest: size:", "size:"));
  EXPECT_EQ(header.count, report_number("entries:", "count:"));
  EXPECT_EQ(header.capacity, report_number("entries:", "capacity:"));
  EXPECT_EQ(header.del_count, report_number("deletion attempts:", "attempts:"));
  EXPECT_EQ(header.bits_per_entry, report_number("bits:", "entry:"));
  EXPECT_EQ(header.mask_size, squid_digest_mask_size(header.capacity, header.bits_per_entry));
  EXPECT_EQ(body.size(), kSquidDigestHeaderBytes + header.mask_size);

  const SquidDigest digest = golden_digest();
  EXPECT_EQ(digest.header(), header);
  EXPECT_EQ(static_cast<long>(digest.bits_set()), report_number("bits:", "on:"));
  EXPECT_EQ(static_cast<long>(digest.used_percent()), report_number("bits:", "util:"));
}

TEST(SquidDigestGolden, ServedAsSquidServesIt) {
  const std::string head = read_file("store_digest.head");
  EXPECT_EQ(head.rfind("HTTP/1.1 200 Cache Digest OK\n", 0), 0u) << head;
  EXPECT_NE(head.find(std::string("Content-Type: ") + kSquidDigestType + "\n"), std::string::npos);
  EXPECT_NE(head.find("Content-Length: " + std::to_string(read_file("store_digest.bin").size())),
            std::string::npos);
  EXPECT_NE(head.find("Expires: "), std::string::npos);
  EXPECT_NE(head.find("Last-Modified: "), std::string::npos);
}

TEST(SquidDigestGolden, ContainsEveryCachedUrl) {
  const SquidDigest digest = golden_digest();
  for (const auto& [key, url] : store_keys())
    EXPECT_TRUE(digest.contains(squid_store_key(url))) << url;
}

// Squid's store held only the captured URLs (capture.py loads no icons), so
// adding their keys to an empty digest of the same size must set exactly
// Squid's bits: positions and bit order byte for byte.
TEST(SquidDigestGolden, RebuildingFromTheUrlsGivesSquidsMask) {
  const SquidDigest golden = golden_digest();
  SquidDigest rebuilt(golden.header().capacity, golden.header().bits_per_entry);
  for (const auto& [key, url] : store_keys()) rebuilt.add(squid_store_key(url));
  EXPECT_TRUE(std::ranges::equal(rebuilt.mask(), golden.mask()));
}

TEST(SquidDigestGolden, ReencodesToTheSameBytes) {
  EXPECT_EQ(golden_digest().encode(), read_file("store_digest.bin"));
}

}  // namespace
}  // namespace sumcache::protocol
