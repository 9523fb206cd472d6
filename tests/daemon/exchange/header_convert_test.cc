#include "daemon/exchange/header_convert.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

beast::http::fields sample() {
  beast::http::fields f;
  f.insert(beast::http::field::host, "example.com");
  f.insert("x-custom", "1");
  f.insert(beast::http::field::content_length, "5");
  f.insert("X-Custom", "2");
  f.insert(beast::http::field::transfer_encoding, "chunked");
  f.insert(beast::http::field::cache_control, "no-cache");
  f.insert(beast::http::field::connection, "close");
  return f;
}

// Every line, names as received (a rule may need duplicates). Beast files a
// repeated name after its last line, so lines of one name stay in their order
// while the order across names may change, which RFC 9110 §5.3 allows.
TEST(HeaderConvert, KeepsEveryLineAndTheOrderOfEachName_Rfc9110_5_3) {
  const HeaderList expected = {{"Host", "example.com"},
                               {"x-custom", "1"},
                               {"X-Custom", "2"},
                               {"Content-Length", "5"},
                               {"Transfer-Encoding", "chunked"},
                               {"Cache-Control", "no-cache"},
                               {"Connection", "close"}};
  EXPECT_EQ(to_header_list(sample()), expected);
  EXPECT_TRUE(to_header_list(beast::http::fields{}).empty());
}

// RFC 9112 §6, §9.3: what framing and persistence decide on, and nothing else.
TEST(HeaderConvert, FramingFieldsAreTransferEncodingContentLengthHostAndConnection_Rfc9112_6) {
  const HeaderList expected = {{"Host", "example.com"},
                               {"Content-Length", "5"},
                               {"Transfer-Encoding", "chunked"},
                               {"Connection", "close"}};
  EXPECT_EQ(framing_fields(sample()), expected);
}

}  // namespace
}  // namespace sumcache::daemon
