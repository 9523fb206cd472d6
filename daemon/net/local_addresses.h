#pragma once
// The addresses of this host's interfaces (getifaddrs), in the IPv4-mapped
// form of cidr.h: where a wildcard listener can be reached.

#include <system_error>
#include <vector>

#include "daemon/net/cidr.h"

namespace sumcache::daemon {

std::vector<Ip6Bytes> local_addresses(std::error_code& ec);

}  // namespace sumcache::daemon
