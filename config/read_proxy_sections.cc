// Readers of the proxy-facing sections: listen, admin, reverse, forward, access.

#include "config/net_syntax.h"
#include "config/section_readers.h"

namespace sumcache::config::detail {
namespace {

// A list of CIDRs at key; an absent list keeps the default.
void read_cidrs(ObjectReader& r, std::string_view key, std::vector<std::string>& out) {
  const Json* v = r.find(key);
  if (v == nullptr) return;
  out.clear();
  for_each_element(*v, r.path_of(key), [&](const Json& element, const std::string& path) {
    const std::string& cidr = as_string(element, path);
    require(path, check_cidr(cidr));
    out.push_back(cidr);
  });
}

PortRange read_port_range(const Json& value, const std::string& path) {
  if (value.is_number_integer()) {
    auto port = static_cast<std::uint16_t>(as_integer(value, path, 1, 65535));
    return {port, port};
  }
  if (!value.is_string()) type_error(path, "port range string", value);
  std::string why;
  auto range = parse_port_range(value.get_ref<const std::string&>(), why);
  if (!range) throw ConfigError(path, why);
  return *range;
}

}  // namespace

void read_address_port(ObjectReader& r, std::string& address, std::uint16_t& port) {
  r.read("address", address);
  require(r.path_of("address"), check_ip_literal(address));
  r.read_integer("port", port, 0, 65535);  // 0: any free port, for tests
}

void read_listen(const Json& value, const std::string& path, std::vector<ListenConfig>& out) {
  out.clear();
  for_each_element(value, path, [&](const Json& element, const std::string& element_path) {
    ListenConfig endpoint{{"127.0.0.1", 3128}, {}};
    ObjectReader::read_object(element, element_path, [&](ObjectReader& r) {
      read_address_port(r, endpoint.address, endpoint.port);
      r.section("tls", [&](ObjectReader& t) { read_server_tls(t, endpoint.tls.emplace()); });
      r.read("http2", endpoint.http2);
      r.read("h2c", endpoint.h2c);
      if (endpoint.h2c && endpoint.tls) {
        throw ConfigError(r.path_of("h2c"),
                          "is for plain listeners: a TLS listener offers h2 by ALPN (http2)");
      }
    });
    out.push_back(endpoint);
  });
  if (out.empty()) throw ConfigError(path, "must hold at least one address to listen on");
}

void read_admin(ObjectReader& r, AdminConfig& out) {
  r.read("enabled", out.enabled);
  read_address_port(r, out.address, out.port);
  r.read("token", out.token);
  r.read("token_file", out.token_file);
  read_cidrs(r, "allow", out.allow);
  r.section("tls", [&](ObjectReader& t) { read_server_tls(t, out.tls.emplace()); });
  if (!out.token.empty() && !out.token_file.empty()) {
    throw ConfigError(r.path_of("token_file"), "token and token_file both given; keep one");
  }
  if (out.enabled && out.allow.empty()) {
    throw ConfigError(r.path_of("allow"),
                      "must not be empty while the admin endpoint is enabled (nobody could "
                      "reach it; set enabled to false instead)");
  }
}

void read_reverse(ObjectReader& r, ReverseConfig& out) {
  if (const Json* v = r.find("origin")) {
    std::string why;
    auto origin = parse_origin(as_string(*v, r.path_of("origin")), why);
    if (!origin) throw ConfigError(r.path_of("origin"), why);
    out.origin = *origin;
  }
  r.read_enum("host_header", out.host_header);
  r.section("tls", [&](ObjectReader& tls) {
    tls.read("verify", out.tls.verify);
    tls.read("ca_file", out.tls.ca_file);
    tls.read("server_name", out.tls.server_name);
    if (!out.tls.server_name.empty()) {
      require(tls.path_of("server_name"), check_host(out.tls.server_name));
    }
  });
}

void read_forward(ObjectReader& r, ForwardConfig& out) {
  if (const Json* v = r.find("connect_ports")) {
    out.connect_ports.clear();
    for_each_element(*v, r.path_of("connect_ports"), [&](const Json& e, const std::string& p) {
      out.connect_ports.push_back(static_cast<std::uint16_t>(as_integer(e, p, 1, 65535)));
    });
  }
  if (const Json* v = r.find("allow_ports")) {
    out.allow_ports.clear();
    for_each_element(*v, r.path_of("allow_ports"), [&](const Json& e, const std::string& p) {
      out.allow_ports.push_back(read_port_range(e, p));
    });
  }
}

void read_access(ObjectReader& r, AccessConfig& out) {
  read_cidrs(r, "allow_clients", out.allow_clients);
  if (out.allow_clients.empty()) {
    throw ConfigError(r.path_of("allow_clients"),
                      "must not be empty: no client could use the proxy");
  }
  read_cidrs(r, "deny_destinations", out.deny_destinations);  // may be empty
}

}  // namespace sumcache::config::detail
