#pragma once
// sumcachectl's command line, parsed into a plain struct (no I/O here):
//   sumcachectl [--admin [http://|https://]HOST:PORT] [--cacert FILE]
//               [--token T | --token-file F] [--json] [--timeout-ms N]
//               stats | peers | filter | purge (URL | --tag T | --prefix P)
//               | peer add ID HOST [--http-port N] [--peer-port N] [--icp-port N]
//                                  [--object-port N] [--weight W]
//               | peer remove ID
//               | bloom-calc --entries N (--fpr P | --bits-per-entry B) [--hashes K]

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sumcache::tools {

enum class Verb { help, stats, peers, filter, purge, bloom_calc, peer_add, peer_remove };

struct AdminAddress {
  std::string host = "127.0.0.1";  // an IP literal, IPv6 without brackets
  std::uint16_t port = 3129;
  bool https = false;
  // https: the name the server certificate must carry, the host as written ("localhost" or
  // the IP literal); a name is also sent as SNI. Empty for plain HTTP.
  std::string verify_name;
  friend bool operator==(const AdminAddress&, const AdminAddress&) = default;
};

struct CtlCommand {
  Verb verb = Verb::help;
  AdminAddress admin;
  std::string cacert;  // https: the CA file to verify the admin against; empty: the system store
  std::string token;
  std::string token_file;
  bool json = false;
  std::chrono::milliseconds timeout{5000};  // the whole exchange: connect, send, receive
  std::string url;                          // purge: a URL, or with --tag / --prefix
  std::string tag;                          // purge --tag
  std::string prefix;                       // purge --prefix: an absolute URL prefix
  // peer add / remove: the peers[] entry's fields; 0 ports and weight: the daemon's defaults.
  std::string peer_id;
  std::string peer_host;
  std::uint16_t http_port = 0;
  std::uint16_t peer_port = 0;
  std::uint16_t icp_port = 0;
  std::uint16_t object_port = 0;
  std::uint32_t weight = 0;
  std::uint64_t entries = 0;  // bloom-calc: n
  double fpr = 0;             // target p; 0 when bits_per_entry is given
  double bits_per_entry = 0;
  std::uint32_t hashes = 0;  // k; 0 = optimal
};

struct ParsedArgs {
  CtlCommand command;
  std::string error;  // not empty: a usage error, with this reason
};

extern const std::string_view kUsage;

ParsedArgs parse_args(const std::vector<std::string>& args);
// "HOST:PORT", "[V6]:PORT", or a host alone (port 3129), optionally after "http://" or
// "https://"; "localhost" becomes 127.0.0.1.
bool parse_admin_address(std::string_view text, AdminAddress& out);

}  // namespace sumcache::tools
