#include "daemon/http/partial_content.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

std::vector<std::pair<std::uint64_t, std::string>> dump(const Pieces& pieces) {
  std::vector<std::pair<std::uint64_t, std::string>> out;
  for (const auto& p : pieces) out.emplace_back(p.first, p.bytes);
  return out;
}

using Dump = std::vector<std::pair<std::uint64_t, std::string>>;

// RFC 9110 §15.3.7.3: the combined content is the union of the ranges;
// overlapping and adjacent ranges become one continuous piece.
TEST(PartialContent, PiecesMergeIntoContinuousRuns_Rfc9110_15_3_7_3) {
  Pieces pieces;
  add_piece(pieces, {4, "45678"});
  add_piece(pieces, {0, "01"});
  EXPECT_EQ(dump(pieces), (Dump{{0, "01"}, {4, "45678"}}));
  add_piece(pieces, {2, "23"});  // adjacent on both sides
  EXPECT_EQ(dump(pieces), (Dump{{0, "012345678"}}));
  add_piece(pieces, {7, "XYZ"});  // overlaps the end: the newer bytes win
  EXPECT_EQ(dump(pieces), (Dump{{0, "0123456XYZ"}}));
  add_piece(pieces, {20, "k"});
  add_piece(pieces, {15, "f"});
  add_piece(pieces, {1, "a"});  // inside one piece
  EXPECT_EQ(dump(pieces), (Dump{{0, "0a23456XYZ"}, {15, "f"}, {20, "k"}}));
  add_piece(pieces, {14, "ghijklm"});  // swallows two pieces
  EXPECT_EQ(dump(pieces), (Dump{{0, "0a23456XYZ"}, {14, "ghijklm"}}));
  add_piece(pieces, {3, ""});  // nothing to add
  EXPECT_EQ(stored_bytes(pieces), 17U);
}

// RFC 9111 §3.3 with RFC 9110 §14.1.2: a stored range answers a request for
// any range inside it.
TEST(PartialContent, CoveringPiece_Rfc9111_3_3) {
  Pieces pieces;
  add_piece(pieces, {4, "456789"});
  EXPECT_NE(covering_piece(pieces, {4, 9}), nullptr);
  EXPECT_NE(covering_piece(pieces, {6, 8}), nullptr);
  EXPECT_EQ(covering_piece(pieces, {3, 5}), nullptr);
  EXPECT_EQ(covering_piece(pieces, {9, 10}), nullptr);
  EXPECT_FALSE(covers_all(pieces, 10));
  add_piece(pieces, {0, "0123"});
  EXPECT_TRUE(covers_all(pieces, 10));
  EXPECT_FALSE(covers_all(pieces, 11));
}

// RFC 9111 §3.4: ask upstream for only what is not stored; one range per
// request (a span over several gaps re-fetches what lies between them).
TEST(PartialContent, MissingSpan_Rfc9111_3_4) {
  Pieces pieces;
  add_piece(pieces, {0, "01234"});
  EXPECT_EQ(missing_span(pieces, {0, 9}), (ByteRange{5, 9}));  // the example
  EXPECT_EQ(missing_span(pieces, {5, 9}), (ByteRange{5, 9}));
  EXPECT_EQ(missing_span(pieces, {1, 3}), std::nullopt);
  add_piece(pieces, {8, "89"});
  EXPECT_EQ(missing_span(pieces, {0, 9}), (ByteRange{5, 7}));
  EXPECT_EQ(missing_span(pieces, {3, 8}), (ByteRange{5, 7}));
  add_piece(pieces, {6, "6"});
  EXPECT_EQ(missing_span(pieces, {0, 9}), (ByteRange{5, 7}));  // two gaps, one span
  EXPECT_EQ(missing_span(pieces, {6, 11}), (ByteRange{7, 11}));
  EXPECT_EQ(missing_span({}, {2, 4}), (ByteRange{2, 4}));
}

// RFC 9111 §3.4, RFC 9110 §15.3.7.3: combined only with the same strong
// validator; a weak or absent ETag never combines.
TEST(PartialContent, CombinableOnlyWithTheSameStrongValidator_Rfc9111_3_4) {
  const HeaderList a{{"ETag", "\"v1\""}};
  EXPECT_TRUE(combinable(a, HeaderList{{"ETag", " \"v1\""}}));
  EXPECT_FALSE(combinable(a, HeaderList{{"ETag", "\"v2\""}}));
  EXPECT_FALSE(combinable(HeaderList{{"ETag", "W/\"v1\""}}, HeaderList{{"ETag", "W/\"v1\""}}));
  EXPECT_FALSE(combinable(HeaderList{}, HeaderList{}));
  EXPECT_FALSE(combinable(a, HeaderList{}));
  EXPECT_FALSE(combinable(HeaderList{{"ETag", "\"v1\""}, {"ETag", "\"v1\""}}, a));
  EXPECT_EQ(strong_validator(a), "\"v1\"");
  EXPECT_EQ(strong_validator(HeaderList{{"ETag", "v1"}}), std::nullopt);
}

// RFC 9111 §3.4: the new response's fields replace the stored ones, aside
// from Content-Range.
TEST(PartialContent, NewerFieldsReplaceStoredOnes_Rfc9111_3_4) {
  const HeaderList stored{{"ETag", "\"v1\""},
                          {"Cache-Control", "max-age=60"},
                          {"X-Old", "1"},
                          {"Content-Range", "bytes 0-4/10"}};
  const HeaderList newer{{"ETag", "\"v1\""},
                         {"Cache-Control", "max-age=3600"},
                         {"X-New", "a"},
                         {"X-New", "b"},
                         {"Content-Range", "bytes 5-9/10"}};
  const HeaderList expected{{"X-Old", "1"},     {"Content-Range", "bytes 0-4/10"},
                            {"ETag", "\"v1\""}, {"Cache-Control", "max-age=3600"},
                            {"X-New", "a"},     {"X-New", "b"}};
  EXPECT_EQ(combined_fields(stored, newer), expected);
}

}  // namespace
}  // namespace sumcache::daemon
