#include "daemon/exchange/squid_digest_target.h"

#include <algorithm>

#include "daemon/http/field_value.h"
#include "daemon/net/cidr.h"
#include "protocol/squid_digest.h"

namespace sumcache::daemon {
namespace {

std::string_view bare(std::string_view host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

}  // namespace

bool may_be_squid_digest_target(std::string_view target) {
  return target.find(protocol::kSquidDigestPath) != std::string_view::npos;
}

bool is_own_squid_digest(const EffectiveUri& uri, const OwnListeners& proxy,
                         std::span<const std::string> hostnames) {
  // Squid serves it over plain http only, at exactly this path: a query would
  // name another object.
  if (uri.scheme != "http" || uri.path != protocol::kSquidDigestPath || uri.query) return false;
  if (const auto address = parse_ip(bare(uri.host))) {
    return check_destination(*address, uri.port, proxy, nullptr, AccessList{}) ==
           DestinationVerdict::own_listener;
  }
  const bool named = std::any_of(hostnames.begin(), hostnames.end(), [&](const std::string& name) {
    return to_lower(name) == uri.host;
  });
  if (!named) return false;
  return std::any_of(proxy.listeners.begin(), proxy.listeners.end(),
                     [&](const ListenerAddress& l) { return l.port == uri.port; });
}

}  // namespace sumcache::daemon
