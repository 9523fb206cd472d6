#include "daemon/http/content_range.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

// RFC 9110 §14.4: range-resp = incl-range "/" complete-length.
TEST(ContentRange, ParsesInclRangeWithCompleteLength_Rfc9110_14_4) {
  EXPECT_EQ(parse_content_range("bytes 4-9/10"), (ContentRange{4, 9, 10}));
  EXPECT_EQ(parse_content_range("bytes 0-0/1"), (ContentRange{0, 0, 1}));
  EXPECT_EQ(parse_content_range("BYTES 0-4/10"), (ContentRange{0, 4, 10}));  // §14.1: unit case
  EXPECT_EQ(parse_content_range(" bytes 0-4/10 "), (ContentRange{0, 4, 10}));
  EXPECT_EQ(parse_content_range("bytes 0-4/10")->length(), 5U);
}

// RFC 9110 §14.4: first > last, or last >= complete length, is invalid; so is
// anything but digits, and "*" lengths give nothing to place a range in.
TEST(ContentRange, RefusesInvalidRanges_Rfc9110_14_4) {
  for (std::string_view bad :
       {"bytes 5-4/10", "bytes 0-10/10", "bytes 0-4/*", "bytes */10", "bytes 0-4", "bytes=0-4/10",
        "bytes  0-4/10", "items 0-4/10", "bytes -1-4/10", "bytes +0-4/10", "bytes 0-4/1x",
        "bytes 0 -4/10", "bytes 0-4/99999999999999999999999", "", "bytes 4/0-10"}) {
    EXPECT_FALSE(parse_content_range(bad)) << bad;
  }
}

HeaderList fields(std::initializer_list<HeaderField> list) { return HeaderList(list); }

// RFC 9110 §15.3.7.1 and §14.4: one Content-Range, and a Content-Length that
// is the range's length; the complete length is checked against the store's
// limit before any body byte is kept (RFC 9111 §3.3).
TEST(ContentRange, ChecksA206HeadBeforeItsBody_Rfc9110_15_3_7_1) {
  const auto ok = check_partial_response(
      fields({{"Content-Range", "bytes 4-9/10"}, {"Content-Length", "6"}}), 100);
  EXPECT_EQ(ok.check, PartialCheck::storable);
  EXPECT_EQ(ok.range, (ContentRange{4, 9, 10}));
  EXPECT_EQ(check_partial_response(fields({{"Content-Range", "bytes 4-9/10"}}), 100).check,
            PartialCheck::storable);  // framed by chunking or close: counted while read
  EXPECT_EQ(check_partial_response(
                fields({{"Content-Range", "bytes 4-9/10"}, {"Content-Length", "5"}}), 100)
                .check,
            PartialCheck::length_mismatch);
  EXPECT_EQ(check_partial_response(fields({{"Content-Range", "bytes 0-4/200"}}), 100).check,
            PartialCheck::too_large);
  EXPECT_EQ(check_partial_response(fields({{"Content-Range", "bytes 0-4/*"}}), 100).check,
            PartialCheck::unknown_length);
  EXPECT_EQ(check_partial_response(fields({{"Content-Range", "bytes 5-4/10"}}), 100).check,
            PartialCheck::malformed);
  EXPECT_EQ(check_partial_response(
                fields({{"Content-Range", "bytes 0-4/10"}, {"Content-Range", "bytes 0-4/10"}}), 100)
                .check,
            PartialCheck::malformed);
  EXPECT_EQ(check_partial_response(fields({}), 100).check, PartialCheck::malformed);
}

// RFC 9110 §15.3.7.2: several ranges come as multipart/byteranges; valid, but
// not kept (we store single ranges only).
TEST(ContentRange, MultipartIsValidButNotKept_Rfc9110_15_3_7_2) {
  const auto multi = check_partial_response(
      fields({{"Content-Type", "multipart/byteranges; boundary=THIS"}}), 100);
  EXPECT_EQ(multi.check, PartialCheck::multipart);
  EXPECT_FALSE(is_protocol_error(multi.check));
  EXPECT_FALSE(is_protocol_error(PartialCheck::unknown_length));
  EXPECT_FALSE(is_protocol_error(PartialCheck::too_large));
  EXPECT_TRUE(is_protocol_error(PartialCheck::malformed));
  EXPECT_TRUE(is_protocol_error(PartialCheck::length_mismatch));
}

}  // namespace
}  // namespace sumcache::daemon
