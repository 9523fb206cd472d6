// RedisReplyReader on raw bytes, no sockets: hiredis's RESP reader with our
// object functions builds every RESP2 type, in pieces as in one go, and refuses
// what is not RESP or is over the limits before allocating for it.

#include "daemon/redis/redis_reply_reader.h"

#include <gtest/gtest.h>

#include <string>

namespace sumcache::daemon {
namespace {

using Type = RedisReply::Type;
using Replies = std::vector<RedisReply>;

Replies read_all(std::string_view bytes, RedisReplyLimits limits = {}) {
  RedisReplyReader reader(limits);
  Replies out;
  EXPECT_FALSE(reader.feed(bytes, out)) << reader.error_text();
  EXPECT_EQ(reader.pending_bytes(), 0u);
  return out;
}

TEST(RedisReplyReader, BuildsEveryReplyType) {
  const Replies r =
      read_all("+OK\r\n-ERR wrong\r\n:-42\r\n$5\r\nhello\r\n$-1\r\n*-1\r\n*0\r\n$0\r\n\r\n");
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r[0].type, Type::status);
  EXPECT_EQ(r[0].str, "OK");
  EXPECT_TRUE(r[1].is_error());
  EXPECT_EQ(r[1].str, "ERR wrong");
  EXPECT_EQ(r[2].type, Type::integer);
  EXPECT_EQ(r[2].integer, -42);
  EXPECT_EQ(r[3].type, Type::string);
  EXPECT_EQ(r[3].str, "hello");
  EXPECT_TRUE(r[4].is_nil());
  EXPECT_TRUE(r[5].is_nil());
  EXPECT_EQ(r[6].type, Type::array);
  EXPECT_TRUE(r[6].elements.empty());
  EXPECT_EQ(r[7].type, Type::string);
  EXPECT_EQ(r[7].str, "");
}

TEST(RedisReplyReader, BuildsNestedArraysInOrder) {
  // An XREAD reply's shape: [[stream, [[id, [field, value]]]]].
  const Replies r = read_all(
      "*1\r\n*2\r\n$1\r\ns\r\n*2\r\n*2\r\n$3\r\n1-0\r\n*2\r\n$1\r\nm\r\n$2\r\nv1\r\n"
      "*2\r\n$3\r\n2-0\r\n*2\r\n$1\r\nm\r\n$2\r\nv2\r\n");
  ASSERT_EQ(r.size(), 1u);
  const auto& stream = r[0].elements.at(0);
  EXPECT_EQ(stream.elements.at(0).str, "s");
  const auto& entries = stream.elements.at(1).elements;
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].elements.at(0).str, "1-0");
  EXPECT_EQ(entries[0].elements.at(1).elements.at(1).str, "v1");
  EXPECT_EQ(entries[1].elements.at(0).str, "2-0");
  EXPECT_EQ(entries[1].elements.at(1).elements.at(1).str, "v2");
}

TEST(RedisReplyReader, ByteByByteGivesTheSameReplies) {
  const std::string bytes = "*3\r\n:1\r\n$4\r\na\r\nb\r\n*1\r\n+x\r\n-E\r\n";
  RedisReplyReader reader;
  Replies out;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    ASSERT_FALSE(reader.feed(bytes.substr(i, 1), out));
    if (i + 1 < bytes.size() && out.empty()) {
      EXPECT_EQ(reader.pending_bytes(), i + 1);
    }
  }
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].elements.at(1).str, "a\r\nb");  // binary safe: CRLF inside a bulk string
  EXPECT_EQ(out[0].elements.at(2).elements.at(0).str, "x");
  EXPECT_TRUE(out[1].is_error());
  EXPECT_EQ(reader.pending_bytes(), 0u);
}

TEST(RedisReplyReader, EveryByteValueSurvives) {
  std::string value;
  for (int i = 0; i < 256; ++i) value.push_back(static_cast<char>(i));
  const Replies r = read_all("$256\r\n" + value + "\r\n");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].str, value);
}

TEST(RedisReplyReader, NotRespIsAProtocolErrorAndFinal) {
  RedisReplyReader reader;
  Replies out;
  EXPECT_EQ(reader.feed("+OK\r\n?what\r\n", out), RedisErrc::protocol_error);
  EXPECT_EQ(out.size(), 1u);  // what came before the bad bytes was delivered
  EXPECT_EQ(reader.feed("+OK\r\n", out), RedisErrc::protocol_error);
  EXPECT_EQ(out.size(), 1u);
  for (const char* bad :
       {":12a\r\n", "$01\r\nx\r\n", "*-2\r\n", "$-2\r\n", "*2147483648\r\n", "$3\r\nabcX\r\n"}) {
    RedisReplyReader fresh;
    Replies none;
    EXPECT_EQ(fresh.feed(bad, none), RedisErrc::protocol_error) << bad;
    EXPECT_TRUE(none.empty()) << bad;
  }
}

TEST(RedisReplyReader, AnArrayOverMaxElementsIsRefusedOnItsHeader) {
  RedisReplyReader reader;  // default limits: 1 Mi elements
  Replies out;
  EXPECT_EQ(reader.feed("*999999999\r\n", out), RedisErrc::reply_too_large);
  RedisReplyReader small({.max_reply_bytes = 1 << 20, .max_elements = 3});
  EXPECT_FALSE(small.feed("*3\r\n:1\r\n:2\r\n:3\r\n", out));
  EXPECT_EQ(small.feed("*1\r\n*4\r\n", out), RedisErrc::reply_too_large);  // nested ones too
}

TEST(RedisReplyReader, ABulkStringOverTheLimitIsRefusedOnItsHeader) {
  RedisReplyReader reader({.max_reply_bytes = 1000, .max_elements = 16});
  Replies out;
  EXPECT_FALSE(reader.feed("$990\r\n", out));  // 6 + 990 + 2 bytes: within the limit
  RedisReplyReader over({.max_reply_bytes = 1000, .max_elements = 16});
  EXPECT_EQ(over.feed("$993\r\n", out), RedisErrc::reply_too_large);  // 1001 bytes
  RedisReplyReader huge;
  EXPECT_EQ(huge.feed("$999999999999\r\n", out), RedisErrc::reply_too_large);
  // Inside an array, the bytes of the elements before count toward the reply.
  RedisReplyReader nested({.max_reply_bytes = 1000, .max_elements = 16});
  EXPECT_EQ(nested.feed("*2\r\n$500\r\n" + std::string(500, 'a') + "\r\n$490\r\n", out),
            RedisErrc::reply_too_large);
  EXPECT_TRUE(out.empty());
}

TEST(RedisReplyReader, BytesHeldForAnIncompleteReplyAreCapped) {
  RedisReplyReader reader({.max_reply_bytes = 1000, .max_elements = 1000});
  Replies out;
  std::string many = "*1000\r\n";
  for (int i = 0; i < 300; ++i) many += ":1\r\n";  // 7 + 1200 bytes, not complete
  EXPECT_EQ(reader.feed(many, out), RedisErrc::reply_too_large);
  EXPECT_TRUE(out.empty());
  // A complete reply over the limit fed at once is refused as well.
  RedisReplyReader whole({.max_reply_bytes = 100, .max_elements = 1000});
  std::string big = "*30\r\n";
  for (int i = 0; i < 30; ++i) big += ":1\r\n";
  EXPECT_EQ(whole.feed(big, out), RedisErrc::reply_too_large);
  // Replies under the limit keep coming, each measured on its own.
  RedisReplyReader steady({.max_reply_bytes = 100, .max_elements = 1000});
  std::string small_ones;
  for (int i = 0; i < 100; ++i) small_ones += "$10\r\n0123456789\r\n";
  EXPECT_FALSE(steady.feed(small_ones, out));
  EXPECT_EQ(out.size(), 100u);
}

}  // namespace
}  // namespace sumcache::daemon
