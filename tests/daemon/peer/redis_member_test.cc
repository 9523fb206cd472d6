#include "daemon/peer/redis_member.h"

#include <gtest/gtest.h>

#include "protocol/message_tag.h"

namespace sumcache::daemon {
namespace {

// Signs `json` as docs/peers.md says, independently of encode_member.
std::string sign(const std::string& json, const std::string& secret = "s3cret") {
  std::string bytes = "sumcache-member-v1\n" + json;
  EXPECT_TRUE(protocol::append_tag(bytes, secret));
  std::string out = json + "\n";
  static constexpr char kHex[] = "0123456789abcdef";
  for (std::size_t i = bytes.size() - 32; i < bytes.size(); ++i) {
    const auto b = static_cast<unsigned char>(bytes[i]);
    out += kHex[b >> 4];
    out += kHex[b & 0xF];
  }
  return out;
}

const std::string kJson =
    R"({"id":"node-b","host":"127.0.0.2","http_port":3128,"peer_port":3130,)"
    R"("icp_port":3131,"object_port":3132,"weight":2,"epoch":123456789})";

MemberRecord record() {
  return {"node-b", "127.0.0.2", 3128, 3130, 3131, 3132, 2, 123456789};
}

TEST(RedisMember, RoundTripsWithTheClusterSecret) {
  const auto stored = encode_member(record(), "s3cret");
  ASSERT_TRUE(stored);
  EXPECT_EQ(*stored, sign(kJson));
  const MemberDecode d = decode_member("node-b", *stored, "s3cret");
  ASSERT_TRUE(d.record) << d.why;
  EXPECT_EQ(*d.record, record());
  const config::PeerConfig p = member_peer(*d.record);
  EXPECT_EQ(p.id, "node-b");
  EXPECT_EQ(p.host, "127.0.0.2");
  EXPECT_EQ(p.peer_port, 3130);
  EXPECT_EQ(p.object_port, 3132);
  EXPECT_EQ(p.weight, 2U);
}

TEST(RedisMember, AnotherSecretIsABadTag) {
  const auto stored = encode_member(record(), "s3cret");
  ASSERT_TRUE(stored);
  const MemberDecode d = decode_member("node-b", *stored, "other");
  EXPECT_FALSE(d.record);
  EXPECT_EQ(d.refusal, RedisRefusal::member_bad_tag);
}

// A forger who edits the JSON (its host, to draw the cluster's fetches) cannot re-tag it.
TEST(RedisMember, AnEditedRecordIsABadTag) {
  auto stored = *encode_member(record(), "s3cret");
  stored.replace(stored.find("127.0.0.2"), 9, "10.6.6.66");
  const MemberDecode d = decode_member("node-b", stored, "s3cret");
  EXPECT_FALSE(d.record);
  EXPECT_EQ(d.refusal, RedisRefusal::member_bad_tag);
}

TEST(RedisMember, ARecordUnderAnotherFieldIsRefused) {
  const auto stored = encode_member(record(), "s3cret");
  const MemberDecode d = decode_member("node-c", *stored, "s3cret");
  EXPECT_FALSE(d.record);
  EXPECT_EQ(d.refusal, RedisRefusal::member_malformed);
}

TEST(RedisMember, MalformedTagsAreRefusedBeforeAnyParse) {
  const std::string& json = kJson;
  for (const std::string& bad :
       {json, json + "\n", json + "\nABCDEF", json + "\n" + std::string(64, 'G'),
        json + "\n" + std::string(63, 'a'), std::string(2000, 'x')}) {
    const MemberDecode d = decode_member("node-b", bad, "s3cret");
    EXPECT_FALSE(d.record);
    EXPECT_EQ(d.refusal, RedisRefusal::member_malformed) << bad.substr(0, 80);
  }
}

// Signed but wrong: what a node with the secret and a bug could write.
TEST(RedisMember, SignedRecordsOfTheWrongShapeAreRefused) {
  MemberRecord zero_port = record();
  zero_port.peer_port = 0;
  MemberRecord bad_host = record();
  bad_host.host = "a host";
  MemberRecord zero_weight = record();
  zero_weight.weight = 0;
  for (const MemberRecord& r : {zero_port, bad_host, zero_weight}) {
    const auto stored = encode_member(r, "s3cret");
    ASSERT_TRUE(stored);
    const MemberDecode d = decode_member("node-b", *stored, "s3cret");
    EXPECT_FALSE(d.record) << *stored;
    EXPECT_EQ(d.refusal, RedisRefusal::member_malformed);
  }
}

TEST(RedisMember, SignedJsonThatIsNoRecordIsRefused) {
  const std::string extra = kJson.substr(0, kJson.size() - 1) + R"(,"admin":true})";
  const std::string missing =
      R"({"id":"node-b","host":"127.0.0.2","http_port":3128,"peer_port":3130,)"
      R"("icp_port":3131,"object_port":3132,"weight":2})";
  const std::string negative =
      R"({"id":"node-b","host":"127.0.0.2","http_port":-1,"peer_port":3130,)"
      R"("icp_port":3131,"object_port":3132,"weight":2,"epoch":1})";
  const std::string big_port =
      R"({"id":"node-b","host":"127.0.0.2","http_port":65536,"peer_port":3130,)"
      R"("icp_port":3131,"object_port":3132,"weight":2,"epoch":1})";
  const std::string string_port =
      R"({"id":"node-b","host":"127.0.0.2","http_port":"80","peer_port":3130,)"
      R"("icp_port":3131,"object_port":3132,"weight":2,"epoch":1})";
  for (const std::string& json : {extra, missing, negative, big_port, string_port,
                                  std::string("[1,2]"), std::string("{\"id\":")}) {
    const MemberDecode d = decode_member("node-b", sign(json), "s3cret");
    EXPECT_FALSE(d.record) << json;
    EXPECT_EQ(d.refusal, RedisRefusal::member_malformed) << json;
  }
}

}  // namespace
}  // namespace sumcache::daemon
