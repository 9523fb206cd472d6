#include "daemon/net/local_addresses.h"

#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace sumcache::daemon {

std::vector<Ip6Bytes> local_addresses(std::error_code& ec) {
  std::vector<Ip6Bytes> out;
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) {
    ec = {errno, std::system_category()};
    return out;
  }
  ec.clear();
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr) continue;
    Ip6Bytes bytes{};
    if (i->ifa_addr->sa_family == AF_INET) {
      sockaddr_in v4{};
      std::memcpy(&v4, i->ifa_addr, sizeof v4);
      bytes[10] = 0xFF;
      bytes[11] = 0xFF;
      std::memcpy(bytes.data() + 12, &v4.sin_addr, 4);
    } else if (i->ifa_addr->sa_family == AF_INET6) {
      sockaddr_in6 v6{};
      std::memcpy(&v6, i->ifa_addr, sizeof v6);
      std::memcpy(bytes.data(), &v6.sin6_addr, 16);
    } else {
      continue;
    }
    if (std::find(out.begin(), out.end(), bytes) == out.end()) out.push_back(bytes);
  }
  ::freeifaddrs(list);
  return out;
}

}  // namespace sumcache::daemon
