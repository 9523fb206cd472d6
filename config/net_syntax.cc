#include "config/net_syntax.h"

#include <arpa/inet.h>

#include <algorithm>
#include <charconv>

namespace sumcache::config::detail {
namespace {

std::optional<std::uint32_t> parse_decimal(std::string_view text, std::uint32_t max) {
  std::uint32_t value = 0;
  const char* end = text.data() + text.size();
  auto [rest, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || rest != end || value > max) return std::nullopt;
  return value;
}

std::string quoted(std::string_view text) { return "\"" + std::string(text) + "\""; }

bool is_label_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

}  // namespace

bool IpAddress::is_unspecified() const {
  return std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == 0; });
}

std::optional<IpAddress> parse_ip(std::string_view text) {
  std::string s(text);  // inet_pton wants a terminated string
  IpAddress ip;
  if (inet_pton(AF_INET, s.c_str(), ip.bytes.data()) == 1) return ip;
  ip.v6 = true;
  if (inet_pton(AF_INET6, s.c_str(), ip.bytes.data()) == 1) return ip;
  return std::nullopt;
}

bool cidr_holds(const std::string& cidr, const std::string& host) {
  const auto address = parse_ip(host);
  const auto slash = cidr.find('/');
  const auto network = parse_ip(std::string_view(cidr).substr(0, slash));
  if (!address || !network || address->v6 != network->v6) return false;
  unsigned bits = static_cast<unsigned>(std::stoul(cidr.substr(slash + 1)));
  for (std::size_t i = 0; bits > 0; ++i) {
    const unsigned take = bits >= 8 ? 8 : bits;
    const auto mask = static_cast<std::uint8_t>(0xFF << (8 - take));
    if ((address->bytes[i] & mask) != (network->bytes[i] & mask)) return false;
    bits -= take;
  }
  return true;
}

std::string check_ip_literal(std::string_view text) {
  if (parse_ip(text)) return {};
  return "expected an IPv4 or IPv6 address literal (got " + quoted(text) + ")";
}

std::string check_cidr(std::string_view text) {
  auto slash = text.find('/');
  auto ip = parse_ip(text.substr(0, slash));
  if (slash == std::string_view::npos || !ip) {
    return "expected a CIDR like \"10.0.0.0/8\" or \"fc00::/7\" (got " + quoted(text) + ")";
  }
  std::uint32_t max_prefix = ip->v6 ? 128 : 32;
  auto prefix = parse_decimal(text.substr(slash + 1), max_prefix);
  if (!prefix) {
    return "prefix length must be 0 to " + std::to_string(max_prefix) + " (got " + quoted(text) +
           ")";
  }
  for (std::uint32_t bit = *prefix; bit < max_prefix; ++bit) {
    if ((ip->bytes[bit / 8] >> (7 - bit % 8)) & 1U) {
      return "address has bits set beyond the /" + std::to_string(*prefix) + " prefix (got " +
             quoted(text) + ")";
    }
  }
  return {};
}

std::string check_host(std::string_view text) {
  if (parse_ip(text)) return {};
  std::string bad = "expected an IP literal or a DNS host name (got " + quoted(text) + ")";
  if (text.empty() || text.size() > 253) return bad;
  std::size_t start = 0;
  while (start <= text.size()) {
    auto dot = std::min(text.find('.', start), text.size());
    std::string_view label = text.substr(start, dot - start);
    if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-' ||
        !std::all_of(label.begin(), label.end(), is_label_char)) {
      return bad;
    }
    start = dot + 1;
  }
  // An all-digit last label would read as a malformed IPv4 address (RFC 3696 section 2).
  auto last_dot = text.rfind('.');
  std::string_view top = last_dot == std::string_view::npos ? text : text.substr(last_dot + 1);
  if (std::all_of(top.begin(), top.end(), [](char c) { return c >= '0' && c <= '9'; })) return bad;
  return {};
}

std::string check_node_id(std::string_view text) {
  bool ok = !text.empty() && text.size() <= 64 && std::all_of(text.begin(), text.end(), [](char c) {
    return is_label_char(c) || c == '.' || c == '_';
  });
  if (ok) return {};
  return "must be 1 to 64 of A-Z a-z 0-9 . _ - (got " + quoted(text) + ")";
}

std::optional<OriginUrl> parse_origin(std::string_view text, std::string& why) {
  why = "expected \"http://host[:port]\" or \"https://host[:port]\" with no path (got " +
        quoted(text) + ")";
  OriginUrl origin;
  std::string_view rest = text;
  if (rest.starts_with("http://")) {
    rest.remove_prefix(7);
  } else if (rest.starts_with("https://")) {
    origin.scheme = Scheme::https;
    rest.remove_prefix(8);
  } else {
    return std::nullopt;
  }
  if (rest.ends_with('/')) rest.remove_suffix(1);
  std::string_view host = rest;
  std::string_view port;
  if (rest.starts_with('[')) {  // RFC 3986 section 3.2.2: IPv6 in brackets
    auto close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = rest.substr(1, close - 1);
    std::string_view after = rest.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) return std::nullopt;
    port = after.empty() ? after : after.substr(1);
    auto ip = parse_ip(host);
    if (!ip || !ip->v6) return std::nullopt;
  } else if (auto colon = rest.find(':'); colon != std::string_view::npos) {
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (!check_host(host).empty()) return std::nullopt;
  origin.host = std::string(host);
  if (port.empty()) {
    origin.port = origin.scheme == Scheme::https ? 443 : 80;
  } else if (auto p = parse_decimal(port, 65535); p && *p != 0) {
    origin.port = static_cast<std::uint16_t>(*p);
  } else {
    return std::nullopt;
  }
  why.clear();
  return origin;
}

std::string format_origin(const OriginUrl& origin) {
  bool v6 = origin.host.find(':') != std::string::npos;
  return std::string(origin.scheme == Scheme::https ? "https://" : "http://") +
         (v6 ? "[" + origin.host + "]" : origin.host) + ":" + std::to_string(origin.port);
}

std::optional<PortRange> parse_port_range(std::string_view text, std::string& why) {
  auto dash = text.find('-');
  auto first = parse_decimal(text.substr(0, dash), 65535);
  auto last = dash == std::string_view::npos ? first : parse_decimal(text.substr(dash + 1), 65535);
  if (!first || !last || *first == 0 || *first > *last) {
    why = "expected a port or a range like \"1025-65535\" within 1 to 65535 (got " + quoted(text) +
          ")";
    return std::nullopt;
  }
  return PortRange{static_cast<std::uint16_t>(*first), static_cast<std::uint16_t>(*last)};
}

std::string format_port_range(const PortRange& range) {
  std::string text = std::to_string(range.first);
  if (range.last != range.first) text += "-" + std::to_string(range.last);
  return text;
}

}  // namespace sumcache::config::detail
