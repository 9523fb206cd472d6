#include "protocol/icp_message.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace sumcache::protocol {
namespace {

using Bytes = std::vector<std::uint8_t>;

Bytes bytes_of(std::string_view s) { return Bytes(s.begin(), s.end()); }

Bytes append(Bytes a, const Bytes& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// A QUERY laid out by hand from RFC 2186's figure: opcode, version, length (16 bits),
// request number, options, option data, sender host address, then the requester host
// address and the URL with its NUL. Every field big-endian.
const Bytes kQuery = append(
    {
        0x01, 0x02, 0x00, 0x22,  // ICP_OP_QUERY, version 2, length 34
        0x01, 0x02, 0x03, 0x04,  // request number
        0x80, 0x00, 0x00, 0x00,  // options: ICP_FLAG_HIT_OBJ
        0x00, 0x00, 0x00, 0x07,  // option data
        0x0a, 0x00, 0x00, 0x01,  // sender host address 10.0.0.1
        0xc0, 0xa8, 0x01, 0x02,  // requester host address 192.168.1.2
    },
    append(bytes_of("http://a/"), {0x00}));

TEST(IcpMessage, DecodesAQueryWrittenOutByteByByte) {
  auto m = decode_icp(kQuery);
  ASSERT_TRUE(m.ok()) << m.error().message();
  EXPECT_EQ(m->opcode, IcpOpcode::query);
  EXPECT_EQ(m->request_number, 0x01020304u);
  EXPECT_EQ(m->options, kIcpFlagHitObj);
  EXPECT_EQ(m->option_data, 7u);
  EXPECT_EQ(m->sender_address, 0x0a000001u);
  EXPECT_EQ(m->requester_address, 0xc0a80102u);
  EXPECT_EQ(m->url, "http://a/");
}

TEST(IcpMessage, EncodesTheSameQueryToTheSameBytes) {
  const IcpMessage m{.opcode = IcpOpcode::query,
                     .request_number = 0x01020304,
                     .options = kIcpFlagHitObj,
                     .option_data = 7,
                     .sender_address = 0x0a000001,
                     .requester_address = 0xc0a80102,
                     .url = "http://a/"};
  auto encoded = encode_icp(m);
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ(*encoded, kQuery);
  EXPECT_EQ(icp_encoded_size(m), kQuery.size());
}

TEST(IcpMessage, AReplyCarriesTheUrlWithoutARequesterAddress) {
  const Bytes expected =
      append({0x02, 0x02, 0x00, 0x1e, 0xff, 0xff, 0xff, 0xfe, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
             append(bytes_of("http://a/"), {0x00}));
  auto encoded =
      encode_icp({.opcode = IcpOpcode::hit, .request_number = 0xfffffffe, .url = "http://a/"});
  ASSERT_TRUE(encoded.ok());
  EXPECT_EQ(*encoded, expected);
}

class IcpRoundTrip : public ::testing::TestWithParam<IcpOpcode> {};

TEST_P(IcpRoundTrip, DecodeGivesBackWhatEncodeWasGiven) {
  const std::string url = "http://example.com/some/path?q=" + std::string(300, 'x');
  const IcpMessage in{.opcode = GetParam(),
                      .request_number = 0x89abcdef,
                      .options = kIcpFlagSrcRtt,
                      .option_data = 0x00010002,
                      .sender_address = 0x7f000001,
                      .requester_address = GetParam() == IcpOpcode::query ? 0x01020304u : 0u,
                      .url = url};
  auto encoded = encode_icp(in);
  ASSERT_TRUE(encoded.ok());
  auto out = decode_icp(*encoded);
  ASSERT_TRUE(out.ok()) << out.error().message();
  EXPECT_EQ(out->opcode, in.opcode);
  EXPECT_EQ(out->request_number, in.request_number);
  EXPECT_EQ(out->options, in.options);
  EXPECT_EQ(out->option_data, in.option_data);
  EXPECT_EQ(out->sender_address, in.sender_address);
  EXPECT_EQ(out->requester_address, in.requester_address);
  EXPECT_EQ(out->url, in.url);
}

INSTANTIATE_TEST_SUITE_P(EveryEncodableOpcode, IcpRoundTrip,
                         ::testing::Values(IcpOpcode::query, IcpOpcode::hit, IcpOpcode::miss,
                                           IcpOpcode::err, IcpOpcode::secho, IcpOpcode::decho,
                                           IcpOpcode::miss_nofetch, IcpOpcode::denied));

TEST(IcpMessage, RoundTripsTheLongestAndTheEmptyUrl) {
  for (const std::string& url : {std::string(kIcpMaxUrl, 'u'), std::string()}) {
    auto encoded = encode_icp({.opcode = IcpOpcode::query, .url = url});
    ASSERT_TRUE(encoded.ok());
    auto out = decode_icp(*encoded);
    ASSERT_TRUE(out.ok()) << out.error().message();
    EXPECT_EQ(out->url, url);
  }
}

TEST(IcpMessage, EncodeReplacesTheBufferContents) {
  std::vector<std::uint8_t> out(100, 0xee);
  ASSERT_FALSE(encode_icp({.opcode = IcpOpcode::miss, .url = "u"}, out));
  EXPECT_EQ(out.size(), kIcpHeaderSize + 2);
  EXPECT_EQ(out.back(), 0);
}

// Helpers for the rejections: a valid message to damage.
Bytes valid_query() { return kQuery; }

void set_length(Bytes& b, std::size_t length) {
  b[2] = static_cast<std::uint8_t>(length >> 8);
  b[3] = static_cast<std::uint8_t>(length);
}

std::error_code decode_error(const Bytes& b) { return decode_icp(b).error(); }

TEST(IcpMessageRejects, ADatagramShorterThanTheHeader) {
  Bytes b(kQuery.begin(), kQuery.begin() + 19);
  EXPECT_EQ(decode_error(b), IcpErrc::truncated);
  EXPECT_EQ(decode_error({}), IcpErrc::truncated);
}

TEST(IcpMessageRejects, AQueryWithoutItsRequesterAddress) {
  Bytes b(kQuery.begin(), kQuery.begin() + 22);
  set_length(b, b.size());
  EXPECT_EQ(decode_error(b), IcpErrc::truncated);
}

TEST(IcpMessageRejects, ALengthFieldThatDiffersFromTheDatagram) {
  Bytes b = valid_query();
  set_length(b, b.size() + 1);
  EXPECT_EQ(decode_error(b), IcpErrc::length_mismatch);
  set_length(b, b.size() - 1);
  EXPECT_EQ(decode_error(b), IcpErrc::length_mismatch);
}

TEST(IcpMessageRejects, EveryVersionButTwo) {
  for (std::uint8_t version : {0, 1, 3, 255}) {
    Bytes b = valid_query();
    b[1] = version;
    EXPECT_EQ(decode_error(b), IcpErrc::bad_version) << int(version);
  }
}

TEST(IcpMessageRejects, OpcodesRfc2186DoesNotDefine) {
  for (std::uint8_t opcode : {0, 5, 9, 12, 20, 24, 255}) {
    Bytes b = valid_query();
    b[0] = opcode;
    EXPECT_EQ(decode_error(b), IcpErrc::unknown_opcode) << int(opcode);
  }
}

TEST(IcpMessageRejects, HitObjWithItsOwnError) {
  Bytes b = valid_query();
  b[0] = 23;
  EXPECT_EQ(decode_error(b), IcpErrc::hit_obj_unsupported);
  EXPECT_EQ(encode_icp({.opcode = IcpOpcode::hit_obj, .url = "u"}).error(), IcpErrc::not_encodable);
}

TEST(IcpMessageRejects, AUrlWithoutItsNul) {
  Bytes b = valid_query();
  b.pop_back();
  set_length(b, b.size());
  EXPECT_EQ(decode_error(b), IcpErrc::url_unterminated);
}

TEST(IcpMessageRejects, BytesAfterTheUrl) {
  Bytes b = valid_query();
  b.push_back('x');
  set_length(b, b.size());
  EXPECT_EQ(decode_error(b), IcpErrc::trailing_bytes);
}

TEST(IcpMessageRejects, AUrlOverTheCap) {
  Bytes b(kIcpHeaderSize, 0);
  b[0] = 3;  // MISS: no requester address
  b[1] = 2;
  b.insert(b.end(), kIcpMaxUrl + 1, 'u');
  b.push_back(0);
  set_length(b, b.size());
  EXPECT_EQ(decode_error(b), IcpErrc::url_too_long);
  b.pop_back();  // and without its NUL: still too long, not merely unterminated
  set_length(b, b.size());
  EXPECT_EQ(decode_error(b), IcpErrc::url_too_long);
  EXPECT_EQ(
      encode_icp({.opcode = IcpOpcode::miss, .url = std::string(kIcpMaxUrl + 1, 'u')}).error(),
      IcpErrc::url_too_long);
}

TEST(IcpMessageRejects, ADatagramOverSixteenKilobytes) {
  Bytes b(kIcpMaxDatagram + 1, 'u');
  b[0] = 3;
  b[1] = 2;
  EXPECT_EQ(decode_error(b), IcpErrc::datagram_too_large);
}

TEST(IcpMessageRejects, EncodingAUrlWithANulInside) {
  using namespace std::string_view_literals;
  EXPECT_EQ(encode_icp({.opcode = IcpOpcode::query, .url = "a\0b"sv}).error(),
            IcpErrc::invalid_url);
}

TEST(IcpMessage, ErrorsNameTheirCategoryAndCause) {
  const std::error_code ec = IcpErrc::length_mismatch;
  EXPECT_STREQ(ec.category().name(), "sumcache.protocol.icp");
  EXPECT_NE(ec.message().find("length"), std::string::npos);
}

TEST(IcpMessage, RepliesAreEverythingButQueryAndHitObj) {
  EXPECT_FALSE(is_icp_reply(IcpOpcode::query));
  EXPECT_FALSE(is_icp_reply(IcpOpcode::hit_obj));
  EXPECT_TRUE(is_icp_reply(IcpOpcode::hit));
  EXPECT_TRUE(is_icp_reply(IcpOpcode::denied));
  EXPECT_STREQ(to_string(IcpOpcode::miss_nofetch), "ICP_OP_MISS_NOFETCH");
}

}  // namespace
}  // namespace sumcache::protocol
