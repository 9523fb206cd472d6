#include "daemon/peer/peer_listeners.h"

#include <gtest/gtest.h>

#include "daemon/net/address_bytes.h"

namespace sumcache::daemon {
namespace {

config::PeerConfig peer_b() {
  config::PeerConfig p;
  p.id = "node-b";
  p.host = "10.0.0.2";
  p.http_port = 3128;
  p.peer_port = 3130;
  p.icp_port = 3131;
  p.object_port = 3132;
  return p;
}

// Issue 27 item 5: peer, object, admin and ICP ports; never the proxy port.
TEST(PeerListeners, PrivatePortsAreEveryListenerButTheProxyPort) {
  config::PeerConfig p = peer_b();
  EXPECT_EQ(private_ports(p, 3129), (std::vector<std::uint16_t>{3129, 3130, 3131, 3132}));
  p.admin_port = 9000;  // named in the config: it wins over this node's own
  EXPECT_EQ(private_ports(p, 3129), (std::vector<std::uint16_t>{3130, 3131, 3132, 9000}));
}

TEST(PeerListeners, UnknownAdminPortAndTheProxyPortAreLeftOut) {
  config::PeerConfig p = peer_b();
  EXPECT_EQ(private_ports(p, 0), (std::vector<std::uint16_t>{3130, 3131, 3132}));
  p.icp_port = p.http_port;  // a port it shares with its proxy stays public
  EXPECT_EQ(private_ports(p, 0), (std::vector<std::uint16_t>{3130, 3132}));
}

TEST(PeerListeners, EveryAddressOfThePeerCarriesItsPorts) {
  PeerListeners out;
  add_peer_listeners(peer_b(), 3129,
                     {asio::ip::make_address("10.0.0.2"), asio::ip::make_address("fd00::2")}, out);
  ASSERT_EQ(out.listeners.size(), 8U);
  EXPECT_EQ(out.listeners[0].address, ip6_bytes(asio::ip::make_address("10.0.0.2")));
  EXPECT_EQ(out.listeners[4].address, ip6_bytes(asio::ip::make_address("fd00::2")));
  EXPECT_EQ(out.listeners[7].port, 3132);
}

}  // namespace
}  // namespace sumcache::daemon
