#include "daemon/net/cidr.h"

#include <gtest/gtest.h>

namespace sumcache::daemon {
namespace {

Ip6Bytes ip(std::string_view text) {
  const auto parsed = parse_ip(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed.value_or(Ip6Bytes{});
}

AccessList list(const std::vector<std::string>& entries) {
  AccessList out;
  EXPECT_EQ(AccessList::build(entries, out), std::nullopt);
  return out;
}

// IPv4 is held mapped into IPv6 (RFC 4291 §2.5.5.2): one form for both families.
TEST(Cidr, Ipv4IsHeldAsIpv4MappedIpv6_Rfc4291_2_5_5_2) {
  const Ip6Bytes mapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 0, 2, 7};
  EXPECT_EQ(ip("192.0.2.7"), mapped);
  EXPECT_EQ(ip("::ffff:192.0.2.7"), mapped);
  EXPECT_EQ(ip("::ffff:c000:207"), mapped);
  const Ip6Bytes loopback6{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  EXPECT_EQ(ip("::1"), loopback6);
}

TEST(Cidr, Ipv4NetworksMatchTheirAddressesOnly) {
  const AccessList l = list({"10.0.0.0/8", "192.168.1.0/24"});
  EXPECT_TRUE(l.allows(ip("10.0.0.0")));
  EXPECT_TRUE(l.allows(ip("10.255.255.255")));
  EXPECT_FALSE(l.allows(ip("11.0.0.0")));
  EXPECT_FALSE(l.allows(ip("9.255.255.255")));
  EXPECT_TRUE(l.allows(ip("192.168.1.200")));
  EXPECT_FALSE(l.allows(ip("192.168.2.1")));
  // A v4 client on a dual-stack socket arrives v4-mapped: the same rule holds.
  EXPECT_TRUE(l.allows(ip("::ffff:10.1.2.3")));
  EXPECT_FALSE(l.allows(ip("::ffff:11.1.2.3")));
  // A native IPv6 address whose last 32 bits spell 10.x is not in 10/8.
  EXPECT_FALSE(l.allows(ip("::a01:203")));
  EXPECT_FALSE(l.allows(ip("2001:db8::a01:203")));
}

TEST(Cidr, Ipv6NetworksMatchOnBitsNotOnBytes) {
  const AccessList l = list({"fc00::/7", "2001:db8:0:80::/57"});
  EXPECT_TRUE(l.allows(ip("fc00::1")));
  EXPECT_TRUE(l.allows(ip("fdff:ffff::1")));
  EXPECT_FALSE(l.allows(ip("fe00::1")));
  EXPECT_FALSE(l.allows(ip("fbff::1")));
  // /57 ends one bit into the 8th byte: 0x80 is in, 0x00 and 0x7f are not.
  EXPECT_TRUE(l.allows(ip("2001:db8:0:80::1")));
  EXPECT_TRUE(l.allows(ip("2001:db8:0:ff::1")));
  EXPECT_FALSE(l.allows(ip("2001:db8:0:7f::1")));
  EXPECT_FALSE(l.allows(ip("2001:db8::1")));
  EXPECT_FALSE(l.allows(ip("10.0.0.1")));
}

// A v4-mapped network written in IPv6 form counts its prefix over 128 bits.
TEST(Cidr, V4MappedNetworkInIpv6FormMatchesIpv4Clients) {
  const AccessList l = list({"::ffff:10.0.0.0/104"});
  EXPECT_TRUE(l.allows(ip("10.9.8.7")));
  EXPECT_FALSE(l.allows(ip("11.9.8.7")));
}

// The prefix edges: /0 of a family, a full-length prefix, and a bare address.
TEST(Cidr, PrefixEdges) {
  const AccessList v4_any = list({"0.0.0.0/0"});
  EXPECT_TRUE(v4_any.allows(ip("1.2.3.4")));
  EXPECT_TRUE(v4_any.allows(ip("255.255.255.255")));
  EXPECT_FALSE(v4_any.allows(ip("::1")));  // every IPv4 address, and no IPv6 one
  EXPECT_FALSE(v4_any.allows(ip("2001:db8::1")));

  const AccessList any = list({"::/0"});
  EXPECT_TRUE(any.allows(ip("::1")));
  EXPECT_TRUE(any.allows(ip("1.2.3.4")));
  EXPECT_TRUE(any.allows(ip("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")));

  for (const char* host : {"192.0.2.7/32", "192.0.2.7"}) {
    const AccessList one = list({host});
    EXPECT_TRUE(one.allows(ip("192.0.2.7"))) << host;
    EXPECT_FALSE(one.allows(ip("192.0.2.6"))) << host;
    EXPECT_FALSE(one.allows(ip("192.0.2.8"))) << host;
  }
  for (const char* host : {"2001:db8::7/128", "2001:db8::7"}) {
    const AccessList one = list({host});
    EXPECT_TRUE(one.allows(ip("2001:db8::7"))) << host;
    EXPECT_FALSE(one.allows(ip("2001:db8::6"))) << host;
    EXPECT_FALSE(one.allows(ip("2001:db8::8"))) << host;
  }
  const auto v4 = parse_cidr("10.0.0.0/8");
  ASSERT_TRUE(v4);
  EXPECT_EQ(v4->prefix, 104U);  // 96 mapped bits + 8
  EXPECT_EQ(parse_cidr("1.2.3.4")->prefix, 128U);
  EXPECT_EQ(parse_cidr("::/0")->prefix, 0U);
}

// Host bits past the prefix do not matter: "10.1.2.3/8" is 10/8.
TEST(Cidr, HostBitsPastThePrefixAreIgnored) {
  const AccessList l = list({"10.1.2.3/8"});
  EXPECT_TRUE(l.allows(ip("10.200.0.1")));
  EXPECT_FALSE(l.allows(ip("11.1.2.3")));
}

TEST(Cidr, BadInputIsRefused) {
  for (const char* text : {"",
                           "/8",
                           "10.0.0.0/",
                           "10.0.0.0/33",
                           "10.0.0.0/-1",
                           "10.0.0.0/+8",
                           "10.0.0.0/8/8",
                           "10.0.0.0/ 8",
                           "10.0.0.0 /8",
                           "10.0.0.0/8 ",
                           "10.0.0.0/x",
                           "10.0.0.0/4294967304",
                           "10.0.0",
                           "10.0.0.256",
                           "1.2.3.4.5",
                           "::/129",
                           "::1/1000",
                           "fe80::1%eth0",
                           "::g",
                           "1:2:3:4:5:6:7:8:9",
                           "localhost",
                           "[::1]",
                           "[::1]/128"}) {
    EXPECT_FALSE(parse_cidr(text).has_value()) << text;
  }
  for (const char* text : {"", " 1.2.3.4", "1.2.3.4 ", "1.2.3.4/32", "::1/128", "[::1]"}) {
    EXPECT_FALSE(parse_ip(text).has_value()) << text;
  }
}

// build names the first entry that does not parse and leaves `out` as it was.
TEST(Cidr, BuildNamesTheFirstBadEntryAndKeepsTheOldList) {
  AccessList out = list({"127.0.0.0/8"});
  EXPECT_EQ(AccessList::build({"10.0.0.0/8", "10.0.0.0/33", "bad"}, out), "10.0.0.0/33");
  EXPECT_TRUE(out.allows(ip("127.0.0.1")));
  EXPECT_FALSE(out.allows(ip("10.0.0.1")));

  AccessList empty;
  EXPECT_EQ(AccessList::build({}, empty), std::nullopt);
  EXPECT_TRUE(empty.empty());
  EXPECT_FALSE(empty.allows(ip("127.0.0.1")));  // an empty list allows no one
}

}  // namespace
}  // namespace sumcache::daemon
