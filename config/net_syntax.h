#pragma once
// Syntax of the network values in the config: IP literals, CIDRs, host names, origin URLs and
// port ranges. The check_* functions return why a value is invalid, or "" when it is valid.
// Internal to the config library.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/proxy_config.h"

namespace sumcache::config::detail {

struct IpAddress {
  bool v6 = false;
  std::array<std::uint8_t, 16> bytes{};  // the first 4 for IPv4
  bool is_unspecified() const;           // 0.0.0.0 or ::
  friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

// IPv4 dotted quad or IPv6 text (RFC 4291 section 2.2) without brackets or zone.
std::optional<IpAddress> parse_ip(std::string_view text);
std::string check_ip_literal(std::string_view text);
// Whether `cidr` (already validated: "address/prefix") holds the IP literal `host`; a name
// never does here (it is checked after resolution, at each connect).
bool cidr_holds(const std::string& cidr, const std::string& host);
// "10.0.0.0/8", "fc00::/7"; host bits beyond the prefix must be zero.
std::string check_cidr(std::string_view text);
// An IP literal or a DNS name (RFC 1123 section 2.1 labels).
std::string check_host(std::string_view text);
// Node and peer ids: 1 to 64 of [A-Za-z0-9._-].
std::string check_node_id(std::string_view text);

// "http://host[:port][/]" or "https://..."; IPv6 hosts in brackets. No path, query or userinfo.
std::optional<OriginUrl> parse_origin(std::string_view text, std::string& why);
std::string format_origin(const OriginUrl& origin);

// "80" or "1025-65535", first <= last, within 1..65535.
std::optional<PortRange> parse_port_range(std::string_view text, std::string& why);
std::string format_port_range(const PortRange& range);

}  // namespace sumcache::config::detail
