// Golden files pin the wire format byte for byte. To change the format on
// purpose, regenerate them and commit them with the format change and a note
// in docs/protocol.md:
//   SUMCACHE_WRITE_GOLDEN=1 build/pch/tests/protocol/protocol_test --gtest_filter='Golden*'
// (it rewrites every file; those of an unchanged format come out the same).

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>

#include "protocol/decode.h"
#include "protocol/wire_header.h"
#include "tests/protocol/golden_messages.h"

namespace sumcache::protocol {
namespace {

using testing::golden_messages;
using testing::kGoldenSecret;

std::string golden_path(const std::string& file) {
  return std::string(SUMCACHE_PROTOCOL_GOLDEN_DIR) + "/" + file;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::optional<std::string> golden_secret(std::string_view node) {
  if (node == "node-a" || node == "node-b") return std::string(kGoldenSecret);
  return std::nullopt;
}

TEST(Golden, EncodingTheFixedInputsGivesTheFilesBytes) {
  const bool write = std::getenv("SUMCACHE_WRITE_GOLDEN") != nullptr;
  for (const auto& golden : golden_messages()) {
    const std::string bytes = golden.bytes();
    ASSERT_FALSE(bytes.empty()) << golden.file;
    if (write) {
      std::ofstream(golden_path(golden.file), std::ios::binary) << bytes;
      continue;
    }
    const std::string expected = read_file(golden_path(golden.file));
    ASSERT_FALSE(expected.empty()) << "missing " << golden_path(golden.file);
    EXPECT_EQ(bytes, expected) << golden.file;
  }
  if (write) GTEST_SKIP() << "golden files written to " << SUMCACHE_PROTOCOL_GOLDEN_DIR;
}

TEST(Golden, FilesDecodeToTheFixedInputs) {
  for (const auto& golden : golden_messages()) {
    const std::string bytes = read_file(golden_path(golden.file));
    auto decoded = decode(bytes, golden_secret);
    ASSERT_TRUE(decoded.ok()) << golden.file << ": " << decoded.error().message();
    const SummaryMessage& want = golden.message;
    EXPECT_EQ(decoded->kind, want.kind) << golden.file;
    EXPECT_EQ(decoded->compression, want.compression) << golden.file;
    EXPECT_EQ(decoded->version, want.version) << golden.file;
    EXPECT_EQ(decoded->min_version, want.min_version) << golden.file;
    EXPECT_EQ(decoded->info.node_id, want.info.node_id);
    EXPECT_EQ(decoded->info.epoch, want.info.epoch);
    EXPECT_EQ(decoded->info.sequence, want.info.sequence);
    EXPECT_EQ(decoded->info.params, want.info.params);
    EXPECT_EQ(decoded->info.hasher, want.info.hasher);
    EXPECT_EQ(decoded->info.entries, want.info.entries);
    EXPECT_EQ(decoded->base_sequence, want.base_sequence);
    EXPECT_EQ(decoded->bits, want.bits) << golden.file;
    EXPECT_EQ(decoded->changes, want.changes) << golden.file;
    EXPECT_EQ(decoded->fingerprints, want.fingerprints) << golden.file;
    EXPECT_EQ(decoded->wire_bytes, bytes.size());
  }
}

TEST(Golden, HeaderStartsWithMagicAndVersionPairAtFixedOffsets) {
  const std::string bytes = read_file(golden_path("full_rice.bin"));
  ASSERT_GE(bytes.size(), kHeaderBytes);
  EXPECT_EQ(bytes.substr(0, 4), "SCSM");
  EXPECT_EQ(bytes.substr(4, 4), std::string("\x01\x00\x01\x00", 4));  // version 1, min 1
  EXPECT_EQ(bytes.substr(8, 2), std::string("\x54\x00", 2));          // header_bytes 84
  EXPECT_EQ(bytes.substr(10, 2), std::string("\x01\x01", 2));         // full, rice_gaps
  EXPECT_EQ(bytes.substr(kHeaderBytes, 6), "node-a");
}

TEST(Golden, FingerprintKindsAreVersionTwoSoVersionOneReadersRefuseThem) {
  // A version-1 reader refuses a min_version above 1 before the tag and the kind.
  for (const char* file : {"fingerprint_full.bin", "fingerprint_delta.bin"}) {
    const std::string bytes = read_file(golden_path(file));
    ASSERT_GE(bytes.size(), kHeaderBytes) << file;
    EXPECT_EQ(bytes.substr(4, 4), std::string("\x02\x00\x02\x00", 4)) << file;
    EXPECT_EQ(bytes.substr(8, 2), std::string("\x54\x00", 2)) << file;           // header_bytes 84
    EXPECT_EQ(bytes[11], '\x01') << file;                                        // rice_gaps
    EXPECT_EQ(bytes.substr(16, 4), std::string("\x01\x00\x00\x00", 4)) << file;  // k = 1
  }
  EXPECT_EQ(read_file(golden_path("fingerprint_full.bin"))[10], '\x05');
  EXPECT_EQ(read_file(golden_path("fingerprint_delta.bin"))[10], '\x06');
  // The Bloom kinds stay version 1 for every older reader.
  EXPECT_EQ(read_file(golden_path("delta.bin")).substr(4, 4), std::string("\x01\x00\x01\x00", 4));
}

TEST(Golden, FingerprintInputsHaveRepeatsAndAChangeOfEachKind) {
  const auto messages = golden_messages();
  const auto& full = messages[4].message.fingerprints.added;
  ASSERT_EQ(messages[4].file, "fingerprint_full.bin");
  EXPECT_NE(std::adjacent_find(full.begin(), full.end()), full.end());
  const auto& delta = messages[5].message.fingerprints;
  ASSERT_EQ(messages[5].file, "fingerprint_delta.bin");
  EXPECT_EQ(delta.removed_ranks.size(), 30U);
  EXPECT_EQ(delta.added.size(), 41U);
  EXPECT_NE(std::adjacent_find(delta.added.begin(), delta.added.end()), delta.added.end());
}

}  // namespace
}  // namespace sumcache::protocol
