#pragma once
// Which certificate of a listener answers a TLS ClientHello's server name
// (RFC 6066 §3), decided without OpenSSL: the first certificate with a DNS
// name equal to it, else the first whose one-label wildcard covers it
// (RFC 6125 §6.4.3: "*.example.com" covers "a.example.com", not
// "example.com" or "a.b.example.com"), else the default (index 0).

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sumcache::daemon {

// `names[i]`: the DNS names of certificate i, lower case. `server_name` as
// sent; compared without case. An empty name (no SNI) gets the default.
std::size_t pick_certificate(const std::vector<std::vector<std::string>>& names,
                             std::string_view server_name);

}  // namespace sumcache::daemon
