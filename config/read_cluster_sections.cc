// Readers of the cluster and peers sections.

#include "config/net_syntax.h"
#include "config/section_readers.h"

namespace sumcache::config::detail {
namespace {

constexpr std::int64_t kHourMs = 3'600'000;
constexpr std::int64_t kDayMs = 24 * kHourMs;
// 128 bits, as for an HMAC key (RFC 2104 section 3 asks for at least the output length).
constexpr std::size_t kMinSecretBytes = 16;

void read_cluster_tls(ObjectReader& r, ClusterTlsConfig& out) {
  r.read("cert_file", out.cert_file);
  r.read("key_file", out.key_file);
  r.read("ca_file", out.ca_file);
  // A node given its certificate and key speaks TLS to its peers unless told
  // not to: a cluster that has certificates should not run in clear by omission.
  if (r.find("enabled") != nullptr) {
    r.read("enabled", out.enabled);
  } else {
    out.enabled = !out.cert_file.empty() && !out.key_file.empty();
  }
  if (!out.enabled) return;
  if (out.cert_file.empty()) throw ConfigError(r.path_of("cert_file"), "required when enabled");
  if (out.key_file.empty()) throw ConfigError(r.path_of("key_file"), "required when enabled");
}

void check_secret_source(ObjectReader& r, const ClusterConfig& out) {
  if (!out.secret.empty() && !out.secret_file.empty()) {
    throw ConfigError(r.path_of("secret_file"), "secret and secret_file both given; keep one");
  }
  if (!out.secret.empty()) require(r.path_of("secret"), check_cluster_secret(out.secret));
  if (out.secret.empty() && out.secret_file.empty()) {
    if (out.sharing == Sharing::summary) {
      throw ConfigError(r.path_of("secret"),
                        "required when sharing is \"summary\": it authenticates the summaries "
                        "(or give secret_file)");
    }
    if (out.sharing != Sharing::none && out.tls.enabled) {
      throw ConfigError(r.path_of("secret"),
                        "required when tls is enabled: the object listener serves verified peer "
                        "requests only (or give secret_file)");
    }
  }
}

void read_peer_allow(ObjectReader& r, std::vector<std::string>& out) {
  const Json* v = r.find("peer_allow");
  if (v == nullptr) return;
  out.clear();
  for_each_element(*v, r.path_of("peer_allow"), [&](const Json& element, const std::string& path) {
    const std::string& cidr = as_string(element, path);
    require(path, check_cidr(cidr));
    out.push_back(cidr);
  });
}

void read_discovery(ObjectReader& r, DiscoveryConfig& out) {
  r.read("name", out.name);
  r.read("hosts_file", out.hosts_file);
  r.read("interval_ms", out.interval_ms, 100, kHourMs);
  if (!out.name.empty()) require(r.path_of("name"), check_host(out.name));
  if (!out.hosts_file.empty() && out.name.empty()) {
    throw ConfigError(r.path_of("hosts_file"), "needs discovery.name: the name to look up in it");
  }
}

void read_squid_digest(ObjectReader& r, SquidDigestConfig& out) {
  r.read("enabled", out.enabled);
  // Below a second, Last-Modified (whole seconds) could not tell two builds apart.
  r.read("rebuild_interval_ms", out.rebuild_interval_ms, 1000, kHourMs);
  const Json* v = r.find("hostnames");
  if (v == nullptr) return;
  out.hostnames.clear();
  for_each_element(*v, r.path_of("hostnames"), [&](const Json& element, const std::string& path) {
    const std::string& name = as_string(element, path);
    require(path, check_host(name));
    out.hostnames.push_back(name);
  });
}

}  // namespace

PeerConfig read_peer(const Json& value, const std::string& path) {
  PeerConfig peer;
  ObjectReader::read_object(value, path, [&](ObjectReader& r) {
    for (std::string_view required : {"id", "host"}) {
      if (r.find(required) == nullptr) throw ConfigError(r.path_of(required), "required");
    }
    r.read("id", peer.id);
    require(r.path_of("id"), check_node_id(peer.id));
    r.read("host", peer.host);
    require(r.path_of("host"), check_host(peer.host));
    r.read_integer("http_port", peer.http_port, 1, 65535);
    r.read_integer("peer_port", peer.peer_port, 1, 65535);
    r.read_integer("icp_port", peer.icp_port, 1, 65535);
    r.read_integer("object_port", peer.object_port, 1, 65535);
    r.read_integer("admin_port", peer.admin_port, 0, 65535);
    r.read_integer("weight", peer.weight, 1, 100);
    r.read_enum("protocol", peer.protocol);
    r.read("icp_source_address", peer.icp_source_address);
    if (!peer.icp_source_address.empty()) {
      require(r.path_of("icp_source_address"), check_ip_literal(peer.icp_source_address));
    }
  });
  return peer;
}

std::string check_cluster_secret(const std::string& secret) {
  if (secret.size() >= kMinSecretBytes) return {};
  return "must be at least " + std::to_string(kMinSecretBytes) + " bytes (got " +
         std::to_string(secret.size()) + ")";
}

void read_cluster(ObjectReader& r, ClusterConfig& out) {
  r.read_enum("sharing", out.sharing);
  r.read_enum("transport", out.transport);
  r.section("redis", [&](ObjectReader& redis) { read_redis(redis, out.redis); });
  r.read("secret", out.secret);
  r.read("secret_file", out.secret_file);
  r.section("peer_listen", [&](ObjectReader& listen) {
    read_address_port(listen, out.peer_listen.address, out.peer_listen.port);
    // Peers name this port in their own config: a kernel-chosen one (0) is unreachable.
    if (out.peer_listen.port == 0) {
      throw ConfigError(listen.path_of("port"),
                        "must be between 1 and 65535 (got 0): peers connect to a fixed port");
    }
  });
  r.section("object_listen", [&](ObjectReader& listen) {
    read_address_port(listen, out.object_listen.address, out.object_listen.port);
    if (out.object_listen.port == 0) {
      throw ConfigError(listen.path_of("port"),
                        "must be between 1 and 65535 (got 0): peers connect to a fixed port");
    }
  });
  r.read_integer("icp_port", out.icp_port, 1, 65535);  // likewise
  r.read("update_threshold_percent", out.update_threshold_percent, 0.1, 10.0);
  r.read("update_max_interval_ms", out.update_max_interval_ms, 100, kHourMs);
  r.read("summary_expiry_ms", out.summary_expiry_ms, 1000, kDayMs);
  r.read("peer_timeout_ms", out.peer_timeout_ms, 1, kHourMs);
  r.read("store_peer_hits", out.store_peer_hits);
  r.read("peer_grace_ms", out.peer_grace_ms, 0, kDayMs);
  r.section("discovery", [&](ObjectReader& d) { read_discovery(d, out.discovery); });
  r.read_enum("miss_policy", out.miss_policy);
  r.read_integer("peer_max_connections", out.peer_max_connections, 0, 100000);
  r.read("peer_head_timeout_ms", out.peer_head_timeout_ms, 10, 60000);
  r.read("peer_summary_rate", out.peer_summary_rate, 0.1, 1000.0);
  r.read_integer("peer_summary_burst", out.peer_summary_burst, 1, 10000);
  // 1024 bits is below any useful summary; 2^28 is the directory's limit.
  r.read_integer("peer_max_filter_bits", out.peer_max_filter_bits, 0, std::int64_t{1} << 28);
  if (out.peer_max_filter_bits != 0 && out.peer_max_filter_bits < 1024) {
    throw ConfigError(r.path_of("peer_max_filter_bits"), "must be 0 (derived) or at least 1024");
  }
  // 2^26 is the receiver directory's slot cap (filters/fingerprint_directory.h).
  r.read_integer("peer_max_fingerprints", out.peer_max_fingerprints, 0, std::int64_t{1} << 26);
  if (out.peer_max_fingerprints != 0 && out.peer_max_fingerprints < 1024) {
    throw ConfigError(r.path_of("peer_max_fingerprints"), "must be 0 (derived) or at least 1024");
  }
  read_peer_allow(r, out.peer_allow);
  r.section("tls", [&](ObjectReader& tls) { read_cluster_tls(tls, out.tls); });
  r.section("squid_digest", [&](ObjectReader& d) { read_squid_digest(d, out.squid_digest); });
  check_secret_source(r, out);
  if (!out.discovery.name.empty() && out.sharing != Sharing::summary) {
    throw ConfigError("$.cluster.discovery.name",
                      "needs sharing \"summary\": discovered peers join at runtime");
  }
  if (out.summary_expiry_ms <= out.update_max_interval_ms) {
    throw ConfigError(r.path_of("summary_expiry_ms"),
                      "must be greater than update_max_interval_ms (" +
                          std::to_string(out.update_max_interval_ms.count()) +
                          "), or a quiet peer's summary would expire between its updates");
  }
}

void read_peers(const Json& value, const std::string& path, std::vector<PeerConfig>& out) {
  out.clear();
  for_each_element(value, path, [&](const Json& element, const std::string& element_path) {
    // Peers are bits of one 64-bit word in lookups (filters/summary_directory.h).
    if (out.size() == 64) throw ConfigError(element_path, "at most 64 peers");
    out.push_back(read_peer(element, element_path));
  });
}

}  // namespace sumcache::config::detail
