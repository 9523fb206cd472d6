#include "daemon/net/destination_policy.h"

#include <gtest/gtest.h>

#include <string>

namespace sumcache::daemon {
namespace {

Ip6Bytes ip(const std::string& text) {
  const auto parsed = parse_ip(text);
  EXPECT_TRUE(parsed.has_value()) << text;
  return parsed.value_or(Ip6Bytes{});
}

AccessList list(const std::vector<std::string>& cidrs) {
  AccessList out;
  EXPECT_FALSE(AccessList::build(cidrs, out).has_value());
  return out;
}

const AccessList kDefaultDeny = list({"169.254.0.0/16", "fe80::/10"});

DestinationVerdict check(const std::string& address, std::uint16_t port, const OwnListeners& own,
                         const AccessList& deny = kDefaultDeny) {
  return check_destination(ip(address), port, own, nullptr, deny);
}

DestinationVerdict check_with_peers(const std::string& address, std::uint16_t port,
                                    const OwnListeners& own, const PeerListeners& peers) {
  return check_destination(ip(address), port, own, &peers, kDefaultDeny);
}

OwnListeners wildcard_node() {
  return {{{ip("0.0.0.0"), 3128}, {ip("::"), 3129}}, {ip("127.0.0.1"), ip("10.1.2.3"), ip("::1")}};
}

OwnListeners loopback_node() { return {{{ip("127.0.0.1"), 3129}}, {ip("127.0.0.1"), ip("::1")}}; }

TEST(DestinationPolicy, WildcardListenerIsReachedOnEveryLoopbackAndLocalAddress) {
  const OwnListeners own = wildcard_node();
  for (const char* address : {"127.0.0.1", "127.5.6.7", "127.255.255.254", "::1", "0.0.0.0",
                              "::", "10.1.2.3", "::ffff:127.0.0.1", "::ffff:10.1.2.3"}) {
    EXPECT_EQ(check(address, 3128, own), DestinationVerdict::own_listener) << address;
    EXPECT_EQ(check(address, 3129, own), DestinationVerdict::own_listener) << address;
  }
}

TEST(DestinationPolicy, OtherPortsAndOtherHostsStayReachable) {
  const OwnListeners own = wildcard_node();
  EXPECT_EQ(check("127.0.0.1", 3130, own), DestinationVerdict::allowed);
  EXPECT_EQ(check("10.1.2.4", 3128, own), DestinationVerdict::allowed);  // not ours
  EXPECT_EQ(check("192.0.2.1", 3128, own), DestinationVerdict::allowed);
  EXPECT_EQ(check("2001:db8::1", 3129, own), DestinationVerdict::allowed);
}

TEST(DestinationPolicy, AddressBoundListenerIsReachedOnItsAddressAndThroughTheUnspecified) {
  const OwnListeners own = loopback_node();
  EXPECT_EQ(check("127.0.0.1", 3129, own), DestinationVerdict::own_listener);
  EXPECT_EQ(check("::ffff:127.0.0.1", 3129, own), DestinationVerdict::own_listener);
  // Linux connects 0.0.0.0 to 127.0.0.1.
  EXPECT_EQ(check("0.0.0.0", 3129, own), DestinationVerdict::own_listener);
  // Another loopback address does not reach a socket bound to 127.0.0.1.
  EXPECT_EQ(check("127.0.0.2", 3129, own), DestinationVerdict::allowed);
  EXPECT_EQ(check("::1", 3129, own), DestinationVerdict::allowed);
}

TEST(DestinationPolicy, DefaultDenyListHoldsTheLinkLocalRanges) {
  const OwnListeners own = loopback_node();
  EXPECT_EQ(check("169.254.169.254", 80, own), DestinationVerdict::denied);
  EXPECT_EQ(check("::ffff:169.254.169.254", 80, own), DestinationVerdict::denied);
  EXPECT_EQ(check("fe80::1", 80, own), DestinationVerdict::denied);
  EXPECT_EQ(check("febf:ffff::1", 80, own), DestinationVerdict::denied);
  EXPECT_EQ(check("fec0::1", 80, own), DestinationVerdict::allowed);
  EXPECT_EQ(check("127.0.0.1", 8080, own), DestinationVerdict::allowed);
  EXPECT_EQ(check("10.0.0.1", 80, own), DestinationVerdict::allowed);
}

TEST(DestinationPolicy, UnspecifiedAddressIsJudgedAsLoopbackByTheDenyList) {
  const AccessList deny = list({"127.0.0.0/8", "::1/128"});
  const OwnListeners none;
  EXPECT_EQ(check("0.0.0.0", 8080, none, deny), DestinationVerdict::denied);
  EXPECT_EQ(check("::", 8080, none, deny), DestinationVerdict::denied);
  EXPECT_EQ(check("127.0.0.2", 8080, none, deny), DestinationVerdict::denied);
  EXPECT_EQ(check("192.0.2.1", 8080, none, deny), DestinationVerdict::allowed);
}

TEST(DestinationPolicy, OwnListenerIsRefusedWhateverTheDenyListSays) {
  const OwnListeners own = loopback_node();
  EXPECT_EQ(check("127.0.0.1", 3129, own, AccessList{}), DestinationVerdict::own_listener);
  EXPECT_EQ(check("127.0.0.1", 3129, own, list({"127.0.0.0/8"})), DestinationVerdict::own_listener);
}

TEST(DestinationPolicy, EmptyDenyListAllowsLinkLocal) {
  EXPECT_EQ(check("169.254.169.254", 80, OwnListeners{}, AccessList{}),
            DestinationVerdict::allowed);
}

TEST(DestinationPolicy, LoopbackOrUnspecified) {
  for (const char* address :
       {"127.0.0.1", "127.1.2.3", "::1", "0.0.0.0", "::", "::ffff:127.0.0.9"}) {
    EXPECT_TRUE(is_loopback_or_unspecified(ip(address))) << address;
  }
  for (const char* address : {"128.0.0.1", "::2", "10.0.0.1", "fe80::1", "::ffff:10.0.0.1"}) {
    EXPECT_FALSE(is_loopback_or_unspecified(ip(address))) << address;
  }
}

// Issue 27 item 5: a sibling's peer, object, admin and ICP ports are refused
// like this node's own, on the peer's address; any other port there stays open.
TEST(DestinationPolicy, PeerPrivateListenersAreRefusedOnThePeersAddress) {
  const OwnListeners own = loopback_node();
  const PeerListeners peers{{{ip("10.9.8.7"), 3130}, {ip("10.9.8.7"), 3129}}};
  EXPECT_EQ(check_with_peers("10.9.8.7", 3130, own, peers), DestinationVerdict::peer_listener);
  EXPECT_EQ(check_with_peers("10.9.8.7", 3129, own, peers), DestinationVerdict::peer_listener);
  EXPECT_EQ(check_with_peers("::ffff:10.9.8.7", 3130, own, peers),
            DestinationVerdict::peer_listener);
  EXPECT_EQ(check_with_peers("10.9.8.7", 3128, own, peers), DestinationVerdict::allowed);
  EXPECT_EQ(check_with_peers("10.9.8.6", 3130, own, peers), DestinationVerdict::allowed);
}

// A peer on this host (the loopback clusters) may listen on a wildcard
// address: its ports are refused on every loopback and interface address.
TEST(DestinationPolicy, PeerOnThisHostIsRefusedOnEveryLocalAddress) {
  const OwnListeners own = loopback_node();
  const PeerListeners peers{{{ip("127.0.0.1"), 4130}}};
  for (const char* address : {"127.0.0.1", "127.0.0.2", "::1", "0.0.0.0", "::ffff:127.0.0.1"}) {
    EXPECT_EQ(check_with_peers(address, 4130, own, peers), DestinationVerdict::peer_listener)
        << address;
  }
  EXPECT_EQ(check_with_peers("10.1.1.1", 4130, own, peers), DestinationVerdict::allowed);
  EXPECT_EQ(check_with_peers("127.0.0.1", 4131, own, peers), DestinationVerdict::allowed);
}

// This node's own object requests to a peer pass no peer list (Origin::peer);
// our own listeners keep their own reason before any peer's.
TEST(DestinationPolicy, WithoutAPeerListOnlyOwnListenersAndTheDenyListCount) {
  const OwnListeners own = loopback_node();
  const PeerListeners peers{{{ip("127.0.0.1"), 3129}, {ip("127.0.0.1"), 4132}}};
  EXPECT_EQ(check("127.0.0.1", 4132, own), DestinationVerdict::allowed);
  EXPECT_EQ(check_with_peers("127.0.0.1", 3129, own, peers), DestinationVerdict::own_listener);
}

}  // namespace
}  // namespace sumcache::daemon
