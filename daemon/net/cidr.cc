#include "daemon/net/cidr.h"

#include <arpa/inet.h>

#include <charconv>
#include <cstring>

namespace sumcache::daemon {

bool Cidr::contains(const Ip6Bytes& address) const {
  unsigned bits = prefix;
  for (std::size_t i = 0; i < 16 && bits > 0; ++i) {
    const unsigned take = bits >= 8 ? 8 : bits;
    const auto mask = static_cast<std::uint8_t>(0xFF << (8 - take));
    if ((address[i] & mask) != (network[i] & mask)) return false;
    bits -= take;
  }
  return true;
}

std::optional<Ip6Bytes> parse_ip(std::string_view text) {
  const std::string s(text);
  Ip6Bytes out{};
  in_addr v4{};
  if (inet_pton(AF_INET, s.c_str(), &v4) == 1) {
    out[10] = 0xFF;
    out[11] = 0xFF;
    std::memcpy(out.data() + 12, &v4, 4);
    return out;
  }
  in6_addr v6{};
  if (inet_pton(AF_INET6, s.c_str(), &v6) == 1) {
    std::memcpy(out.data(), &v6, 16);
    return out;
  }
  return std::nullopt;
}

std::optional<Cidr> parse_cidr(std::string_view text) {
  const auto slash = text.find('/');
  const std::string_view host = text.substr(0, slash);
  const auto address = parse_ip(host);
  if (!address) return std::nullopt;
  const bool v4 = host.find(':') == std::string_view::npos;
  unsigned prefix = v4 ? 32 : 128;
  if (slash != std::string_view::npos) {
    const std::string_view digits = text.substr(slash + 1);
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), prefix);
    if (ec != std::errc{} || end != digits.data() + digits.size() || digits.empty()) {
      return std::nullopt;
    }
    if (prefix > (v4 ? 32U : 128U)) return std::nullopt;
  }
  return Cidr{*address, v4 ? prefix + 96 : prefix};
}

std::optional<std::string> AccessList::build(const std::vector<std::string>& entries,
                                             AccessList& out) {
  AccessList list;
  for (const auto& entry : entries) {
    auto cidr = parse_cidr(entry);
    if (!cidr) return entry;
    list.networks_.push_back(*cidr);
  }
  out = std::move(list);
  return std::nullopt;
}

bool AccessList::allows(const Ip6Bytes& address) const {
  for (const auto& network : networks_) {
    if (network.contains(address)) return true;
  }
  return false;
}

}  // namespace sumcache::daemon
