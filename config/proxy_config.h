#pragma once
// The proxy-facing sections of the config: listeners, admin endpoint, reverse and forward
// mode, client access. Field names are the JSON names; docs/configuration.md has the rules.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "config/tls_config.h"

namespace sumcache::config {

enum class Mode { forward, reverse };

// A TCP address to bind. Port 0 asks the kernel for a free port, which is what tests use.
struct Endpoint {
  std::string address;  // an IPv4 or IPv6 literal, no brackets
  std::uint16_t port = 0;
  friend bool operator==(const Endpoint&, const Endpoint&) = default;
};

// A proxy listener: plain HTTP, or HTTPS when tls is set. HTTP/2 is offered by
// ALPN on a TLS listener unless http2 is false; h2c takes prior-knowledge
// HTTP/2 on a plain one (docs/http2.md).
struct ListenConfig : Endpoint {
  std::optional<ServerTlsConfig> tls;
  bool http2 = true;
  bool h2c = false;
  friend bool operator==(const ListenConfig&, const ListenConfig&) = default;
};

struct AdminConfig {
  bool enabled = true;
  std::string address = "127.0.0.1";
  std::uint16_t port = 3129;
  std::string token;                 // inline, or read from token_file by load_config_file
  std::filesystem::path token_file;  // as written; relative to the config file's directory
  std::vector<std::string> allow = {"127.0.0.0/8", "::1/128"};  // CIDRs
  std::optional<ServerTlsConfig> tls;                           // set: HTTPS only
  friend bool operator==(const AdminConfig&, const AdminConfig&) = default;
};

enum class Scheme { http, https };
enum class HostHeader { keep, origin };

// reverse.origin, parsed: "https://example.com:8443" or "http://[::1]:8080".
struct OriginUrl {
  Scheme scheme = Scheme::http;
  std::string host;  // a name or an IP literal (IPv6 without brackets); empty when not set
  std::uint16_t port = 0;
  friend bool operator==(const OriginUrl&, const OriginUrl&) = default;
};

struct OriginTlsConfig {
  bool verify = true;
  std::filesystem::path ca_file;  // empty: the system store
  std::string server_name;        // empty: origin.host
  friend bool operator==(const OriginTlsConfig&, const OriginTlsConfig&) = default;
};

struct ReverseConfig {
  OriginUrl origin;
  HostHeader host_header = HostHeader::keep;
  OriginTlsConfig tls;
  friend bool operator==(const ReverseConfig&, const ReverseConfig&) = default;
};

struct PortRange {
  std::uint16_t first = 0;
  std::uint16_t last = 0;  // inclusive; equal to first for a single port
  friend bool operator==(const PortRange&, const PortRange&) = default;
};

struct ForwardConfig {
  std::vector<std::uint16_t> connect_ports = {443};  // CONNECT tunnels only to these
  std::vector<PortRange> allow_ports = {{80, 80}, {443, 443}, {1025, 65535}};
  friend bool operator==(const ForwardConfig&, const ForwardConfig&) = default;
};

// Who may use the proxy. Private ranges only: an open proxy is never the default.
struct AccessConfig {
  std::vector<std::string> allow_clients = {"127.0.0.0/8",   "::1/128",        "10.0.0.0/8",
                                            "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"};
  // Upstream addresses never connected to, checked after name resolution: link-local, where
  // cloud metadata services answer. Loopback and private ranges stay reachable (docs/proxy.md).
  std::vector<std::string> deny_destinations = {"169.254.0.0/16", "fe80::/10"};
  friend bool operator==(const AccessConfig&, const AccessConfig&) = default;
};

}  // namespace sumcache::config
