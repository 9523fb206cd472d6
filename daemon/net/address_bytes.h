#pragma once
// An Asio address in the form the allow-lists (cidr.h) hold: IPv4 mapped into
// IPv6. From the bytes, not the text, which may carry an IPv6 scope ("%eth0").

#include "daemon/net/asio.h"
#include "daemon/net/cidr.h"

namespace sumcache::daemon {

inline Ip6Bytes ip6_bytes(const asio::ip::address& address) {
  const asio::ip::address_v6 v6 =
      address.is_v4() ? asio::ip::make_address_v6(asio::ip::v4_mapped, address.to_v4())
                      : address.to_v6();
  return v6.to_bytes();
}

}  // namespace sumcache::daemon
