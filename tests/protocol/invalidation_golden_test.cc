// Golden files pin the invalidation wire format byte for byte, as
// golden_test.cc does for summaries. To change the format on purpose,
// regenerate them and commit them with the format change and a note in
// docs/protocol.md:
//   SUMCACHE_WRITE_GOLDEN=1 build/dev/tests/protocol/protocol_invalidation_test
//     --gtest_filter='InvalidationGolden*'   (one command line)

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "protocol/invalidation_header.h"
#include "protocol/invalidation_message.h"

namespace sumcache::protocol {
namespace {

constexpr std::string_view kGoldenSecret = "golden-cluster-secret";

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

InvalidationBatch golden_batch() {
  InvalidationBatch batch;
  batch.node_id = "node-a";
  batch.epoch = 0x0000'6553'F100'0ABCULL;
  batch.first_seq = 42;
  batch.entries = {
      {InvalidationKind::url, 1'700'000'000'001, "http://example.com/a?b=1"},
      {InvalidationKind::tag, 1'700'000'000'002, "product-42"},
      {InvalidationKind::prefix, 1'700'000'000'003, "http://example.com/static/"},
  };
  return batch;
}

InvalidationBatch golden_missed_batch() {
  InvalidationBatch batch = golden_batch();
  batch.first_seq = 1000;
  batch.missed_until_ms = 1'699'999'999'000;
  batch.entries.resize(1);
  return batch;
}

InvalidationAck golden_ack() { return {"node-b", "node-a", 0x0000'6553'F100'0ABCULL, 44}; }

struct Golden {
  std::string file;
  std::string bytes;
};

std::vector<Golden> goldens() {
  return {{"invalidations.bin", encode_invalidations(golden_batch(), kGoldenSecret).value()},
          {"invalidations_missed.bin",
           encode_invalidations(golden_missed_batch(), kGoldenSecret).value()},
          {"invalidation_ack.bin", encode_invalidation_ack(golden_ack(), kGoldenSecret).value()}};
}

TEST(InvalidationGolden, EncodingTheFixedInputsGivesTheFilesBytes) {
  const bool write = std::getenv("SUMCACHE_WRITE_GOLDEN") != nullptr;
  for (const auto& golden : goldens()) {
    ASSERT_FALSE(golden.bytes.empty()) << golden.file;
    if (write) {
      std::ofstream(golden_path(golden.file), std::ios::binary) << golden.bytes;
      continue;
    }
    const std::string expected = read_file(golden_path(golden.file));
    ASSERT_FALSE(expected.empty()) << "missing " << golden_path(golden.file);
    EXPECT_EQ(golden.bytes, expected) << golden.file;
  }
  if (write) GTEST_SKIP() << "golden files written to " << SUMCACHE_PROTOCOL_GOLDEN_DIR;
}

TEST(InvalidationGolden, FilesDecodeToTheFixedInputs) {
  auto batch = decode_invalidations(read_file(golden_path("invalidations.bin")), golden_secret);
  ASSERT_TRUE(batch.ok()) << batch.error().message();
  EXPECT_EQ(*batch, golden_batch());
  auto missed =
      decode_invalidations(read_file(golden_path("invalidations_missed.bin")), golden_secret);
  ASSERT_TRUE(missed.ok()) << missed.error().message();
  EXPECT_EQ(*missed, golden_missed_batch());
  auto ack = decode_invalidation_ack(read_file(golden_path("invalidation_ack.bin")), golden_secret);
  ASSERT_TRUE(ack.ok()) << ack.error().message();
  EXPECT_EQ(*ack, golden_ack());
}

TEST(InvalidationGolden, HeaderFieldsSitAtTheDocumentedOffsets) {
  const std::string bytes = read_file(golden_path("invalidations_missed.bin"));
  ASSERT_GE(bytes.size(), kInvalidationHeaderBytes);
  EXPECT_EQ(bytes.substr(0, 4), "SCIV");
  EXPECT_EQ(bytes.substr(4, 4), std::string("\x01\x00\x01\x00", 4));   // version 1, min 1
  EXPECT_EQ(bytes.substr(8, 2), std::string("\x2c\x00", 2));           // header_bytes 44
  EXPECT_EQ(bytes.substr(10, 2), std::string("\x03\x06", 2));          // kind 3, node id 6 bytes
  EXPECT_EQ(bytes.substr(12, 4), std::string("\x01\x00\x01\x00", 4));  // count 1, flag missed
  EXPECT_EQ(bytes.substr(24, 8), std::string("\xe8\x03\0\0\0\0\0\0", 8));  // first_seq 1000
  EXPECT_EQ(bytes.substr(kInvalidationHeaderBytes, 6), "node-a");
  // The entry: kind 1, time_ms, value length 24, the key.
  EXPECT_EQ(bytes.substr(kInvalidationHeaderBytes + 6, 1), "\x01");
  EXPECT_EQ(bytes.substr(kInvalidationHeaderBytes + 15, 2), std::string("\x18\x00", 2));
  EXPECT_EQ(bytes.substr(kInvalidationHeaderBytes + 17, 24), "http://example.com/a?b=1");
}

}  // namespace
}  // namespace sumcache::protocol
