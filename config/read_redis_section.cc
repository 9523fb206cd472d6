// Reader of cluster.redis: the Redis servers a redis transport publishes to
// (docs/configuration.md, "cluster.redis"). Rules that need other sections
// (sharing, peer_listen) are in cross_checks.cc.

#include <algorithm>
#include <cctype>
#include <utility>

#include "config/net_syntax.h"
#include "config/section_readers.h"

namespace sumcache::config::detail {
namespace {

constexpr std::int64_t kMinuteMs = 60'000;
constexpr std::int64_t kHourMs = 60 * kMinuteMs;
constexpr std::uint16_t kRedisPort = 6379;
// Node ids hash onto the servers; more than this is a Redis Cluster's job.
constexpr std::size_t kMaxServers = 64;
constexpr std::size_t kMaxKeyPrefixBytes = 64;
constexpr std::size_t kMaxUsernameBytes = 128;

// Printable ASCII without space: a key prefix or an ACL user name travels as one
// argument and is written in logs and redis-cli sessions as it is.
std::string check_word(std::string_view text, std::size_t max_bytes) {
  const bool ok = !text.empty() && text.size() <= max_bytes &&
                  std::all_of(text.begin(), text.end(), [](char c) { return c > ' ' && c < 0x7F; });
  if (ok) return {};
  return "must be 1 to " + std::to_string(max_bytes) +
         " printable ASCII characters without spaces (got \"" + std::string(text) + "\")";
}

// Two spellings of one server: equal IP addresses ("::1", "0::1") or names
// equal but for case (RFC 4343).
bool same_server(const Endpoint& a, const Endpoint& b) {
  if (a.port != b.port) return false;
  const auto ip_a = parse_ip(a.address);
  const auto ip_b = parse_ip(b.address);
  if (ip_a || ip_b) return ip_a && ip_b && *ip_a == *ip_b;
  return std::equal(a.address.begin(), a.address.end(), b.address.begin(), b.address.end(),
                    [](char x, char y) {
                      return std::tolower(static_cast<unsigned char>(x)) ==
                             std::tolower(static_cast<unsigned char>(y));
                    });
}

void read_servers(ObjectReader& r, std::vector<Endpoint>& out) {
  const Json* v = r.find("servers");
  if (v == nullptr) return;
  out.clear();
  const std::string path = r.path_of("servers");
  for_each_element(*v, path, [&](const Json& element, const std::string& entry) {
    if (out.size() == kMaxServers) {
      throw ConfigError(entry, "at most " + std::to_string(kMaxServers) + " servers");
    }
    Endpoint server{"", kRedisPort};
    ObjectReader::read_object(element, entry, [&](ObjectReader& s) {
      if (s.find("address") == nullptr) throw ConfigError(s.path_of("address"), "required");
      s.read("address", server.address);
      require(s.path_of("address"), check_host(server.address));
      s.read_integer("port", server.port, 1, 65535);
    });
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (!same_server(out[i], server)) continue;
      throw ConfigError(entry + ".address", "same address and port as " + element_path(path, i));
    }
    out.push_back(server);
  });
}

void check_credentials(ObjectReader& r, const RedisConfig& out) {
  if (!out.password.empty() && !out.password_file.empty()) {
    throw ConfigError(r.path_of("password_file"),
                      "password and password_file both given; keep one");
  }
  if (out.username.empty()) return;
  require(r.path_of("username"), check_word(out.username, kMaxUsernameBytes));
  if (out.password.empty() && out.password_file.empty()) {
    throw ConfigError(r.path_of("username"),
                      "needs password or password_file: AUTH takes a user name with a password");
  }
}

void check_tls(ObjectReader& r, const RedisConfig& out) {
  if (!out.tls) {
    // Without tls the password would cross the network in clear: a file or a
    // name given here most likely means tls was forgotten.
    for (const auto& [key, given] : {std::pair{"ca_file", !out.ca_file.empty()},
                                     std::pair{"cert_file", !out.cert_file.empty()},
                                     std::pair{"key_file", !out.key_file.empty()},
                                     std::pair{"server_name", !out.server_name.empty()}}) {
      if (given) throw ConfigError(r.path_of(key), "needs tls true");
    }
    return;
  }
  if (out.cert_file.empty() != out.key_file.empty()) {
    const char* missing = out.cert_file.empty() ? "cert_file" : "key_file";
    throw ConfigError(r.path_of(missing),
                      "cert_file and key_file go together (a client certificate and its key)");
  }
  if (!out.server_name.empty()) require(r.path_of("server_name"), check_host(out.server_name));
}

}  // namespace

void read_redis(ObjectReader& r, RedisConfig& out) {
  read_servers(r, out.servers);
  r.read("username", out.username);
  r.read("password", out.password);
  r.read("password_file", out.password_file);
  r.read("tls", out.tls);
  r.read("ca_file", out.ca_file);
  r.read("cert_file", out.cert_file);
  r.read("key_file", out.key_file);
  r.read("server_name", out.server_name);
  r.read("key_prefix", out.key_prefix);
  // Fewer entries than a burst of deltas would send readers to the full summary.
  r.read_integer("stream_length", out.stream_length, 16, 1'000'000);
  r.read("heartbeat_ms", out.heartbeat_ms, 100, kMinuteMs);
  r.read("member_expiry_ms", out.member_expiry_ms, 200, kHourMs);
  r.read("connect_timeout_ms", out.connect_timeout_ms, 1, kMinuteMs);
  r.read("command_timeout_ms", out.command_timeout_ms, 1, kMinuteMs);
  // XREAD BLOCK 0 waits forever: every read has a deadline.
  r.read("block_ms", out.block_ms, 10, kMinuteMs);
  r.read("advertise_host", out.advertise_host);
  check_credentials(r, out);
  check_tls(r, out);
  require(r.path_of("key_prefix"), check_word(out.key_prefix, kMaxKeyPrefixBytes));
  if (out.member_expiry_ms <= 2 * out.heartbeat_ms) {
    throw ConfigError(r.path_of("member_expiry_ms"),
                      "must be greater than 2 x heartbeat_ms (" +
                          std::to_string(2 * out.heartbeat_ms.count()) +
                          "), or one late heartbeat would make the node leave");
  }
  if (!out.advertise_host.empty()) {
    require(r.path_of("advertise_host"), check_host(out.advertise_host));
  }
}

}  // namespace sumcache::config::detail
