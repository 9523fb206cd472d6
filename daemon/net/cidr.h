#pragma once
// IP networks in CIDR notation and the allow-lists built from them. IPv4
// addresses are held as IPv4-mapped IPv6 (::ffff:a.b.c.d), so one form serves
// both families and a v4 client on a dual-stack socket matches v4 rules.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sumcache::daemon {

using Ip6Bytes = std::array<std::uint8_t, 16>;

struct Cidr {
  Ip6Bytes network{};
  unsigned prefix = 0;  // over the 128-bit form
  bool contains(const Ip6Bytes& address) const;
};

std::optional<Ip6Bytes> parse_ip(std::string_view text);
// "10.0.0.0/8", "::1/128", or a bare address (a /32 or /128).
std::optional<Cidr> parse_cidr(std::string_view text);

class AccessList {
 public:
  AccessList() = default;
  // Returns the first entry that does not parse, or nullopt when all do.
  static std::optional<std::string> build(const std::vector<std::string>& entries, AccessList& out);
  bool allows(const Ip6Bytes& address) const;
  bool empty() const { return networks_.empty(); }

 private:
  std::vector<Cidr> networks_;
};

}  // namespace sumcache::daemon
