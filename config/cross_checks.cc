#include "config/cross_checks.h"

#include <cmath>
#include <string>
#include <vector>

#include "config/config_error.h"
#include "config/enum_names.h"
#include "config/json_value.h"
#include "config/net_syntax.h"
#include "config/peer_checks.h"

namespace sumcache::config::detail {
namespace {

// The filters library caps a filter at 2^40 bits (filters/filter_params.h, kMaxBits); config
// depends on nothing of ours, so the limit is repeated here.
constexpr double kMaxFilterBits = 1099511627776.0;

struct Listener {
  std::string path;  // of the address and port pair, "$.listen[0]"
  std::string address;
  std::uint16_t port;
};

// Two TCP listeners of one address family collide on a port when their addresses are equal or
// either is the wildcard; with SO_REUSEPORT a collision would not even fail to bind, it would
// split connections between them. IPv6 listeners are IPv6-only (IPV6_V6ONLY), so "0.0.0.0"
// and "::" on one port is the dual-stack setup, not a collision.
bool collide(const Listener& a, const Listener& b) {
  if (a.port == 0 || a.port != b.port) return false;  // port 0 picks a free port
  auto ip_a = parse_ip(a.address);  // both valid: the section readers checked them
  auto ip_b = parse_ip(b.address);
  if (ip_a->v6 != ip_b->v6) return false;
  return ip_a->is_unspecified() || ip_b->is_unspecified() || *ip_a == *ip_b;
}

void check_listeners(const Config& config) {
  std::vector<Listener> listeners;
  for (std::size_t i = 0; i < config.listen.size(); ++i) {
    const Endpoint& e = config.listen[i];
    listeners.push_back({element_path("$.listen", i), e.address, e.port});
  }
  if (config.admin.enabled) {
    listeners.push_back({"$.admin", config.admin.address, config.admin.port});
  }
  if (config.cluster.sharing == Sharing::summary) {
    const Endpoint& e = config.cluster.peer_listen;
    listeners.push_back({"$.cluster.peer_listen", e.address, e.port});
  }
  if (config.cluster.sharing != Sharing::none && config.cluster.tls.enabled) {
    const Endpoint& e = config.cluster.object_listen;
    listeners.push_back({"$.cluster.object_listen", e.address, e.port});
  }
  for (std::size_t i = 1; i < listeners.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) {
      if (!collide(listeners[i], listeners[j])) continue;
      throw ConfigError(listeners[i].path + ".port", "port " + std::to_string(listeners[i].port) +
                                                         " on " + listeners[i].address +
                                                         " collides with " + listeners[j].path +
                                                         " (" + listeners[j].address + ")");
    }
  }
}

void check_budgets(const Config& config) {
  const CacheConfig& cache = config.cache;
  auto too_small = [&](const char* path, std::uint64_t budget) {
    throw ConfigError(path, "must be at least max_object_bytes (" +
                                std::to_string(cache.max_object_bytes) + ", got " +
                                std::to_string(budget) + ")");
  };
  // With a disk tier, a body larger than the memory tier is stored on disk
  // only, streamed (docs/store.md, "Disk-only fills"); without one, every
  // object must fit in memory.
  if (!cache.disk.enabled && cache.memory.max_bytes < cache.max_object_bytes) {
    throw ConfigError("$.cache.memory.max_bytes",
                      "must be at least max_object_bytes (" +
                          std::to_string(cache.max_object_bytes) + ", got " +
                          std::to_string(cache.memory.max_bytes) +
                          ") when the disk tier is disabled: larger objects live on disk only");
  }
  if (cache.disk.enabled && cache.disk.max_bytes < cache.max_object_bytes) {
    too_small("$.cache.disk.max_bytes", cache.disk.max_bytes);
  }
  const FilterConfig& f = config.filter;
  if (f.kind == FilterKind::fingerprint) {
    // The universe U = ceil(n / p) of filters/fingerprint.h, capped there at
    // 2^40 (kMaxUniverse), repeated here as kMaxFilterBits is.
    const double p = f.target_fpr > 0 ? f.target_fpr : kPaperFpr;
    const double universe = std::ceil(static_cast<double>(filter_expected_entries(config)) / p);
    if (universe > kMaxFilterBits) {
      throw ConfigError("$.filter.expected_entries",
                        "a fingerprint summary of " +
                            std::to_string(filter_expected_entries(config)) +
                            " entries at target_fpr " + std::to_string(p) +
                            " needs a universe above 2^40; lower it, or raise target_fpr");
    }
    return;
  }
  // With a target rate, an upper bound: m/n is 1.44 log2(1/p) at the memory
  // optimum, and below 1/p with k = 1 on the wire.
  const double per_entry = f.target_fpr <= 0 ? f.bits_per_entry
                           : f.objective == FilterObjective::wire
                               ? 1.0 / f.target_fpr
                               : 1.4427 * std::log2(1.0 / f.target_fpr);
  double bits = static_cast<double>(filter_expected_entries(config)) * per_entry;
  if (bits > kMaxFilterBits) {
    throw ConfigError("$.filter.expected_entries",
                      "the filter would need more than 2^40 bits (" +
                          std::to_string(filter_expected_entries(config)) +
                          " entries at bits_per_entry); lower it, or raise avg_object_bytes");
  }
}

// Each entry by the rules POST /peers applies too (peer_checks.h), then the list as a whole.
void check_peers(const Config& config) {
  const auto& peers = config.peers;
  for (std::size_t i = 0; i < peers.size(); ++i) {
    std::string path = element_path("$.peers", i);
    check_peer_entry(config, peers[i], path);
    for (std::size_t j = 0; j < i; ++j) {
      if (peers[j].id == peers[i].id) {
        throw ConfigError(path + ".id", "duplicate peer id \"" + peers[i].id + "\" (also " +
                                            element_path("$.peers", j) + ".id)");
      }
      if (peers[j].host == peers[i].host && peers[j].http_port == peers[i].http_port) {
        throw ConfigError(path + ".host",
                          "same host and http_port as " + element_path("$.peers", j));
      }
    }
  }
}

// A reverse origin written as an address inside access.deny_destinations would have every
// connect refused: say so at load rather than with a 403 on each request (peers: above).
void check_origin_destination(const Config& config) {
  if (config.mode != Mode::reverse) return;
  const auto& deny = config.access.deny_destinations;
  const std::string& host = config.reverse.origin.host;
  for (std::size_t i = 0; i < deny.size(); ++i) {
    if (!cidr_holds(deny[i], host)) continue;
    throw ConfigError("$.reverse.origin", host + " is inside $.access.deny_destinations[" +
                                              std::to_string(i) + "] (" + deny[i] +
                                              "): every connect to it would be refused");
  }
}

// transport redis (docs/peers.md, "Redis transport"): summaries go through
// Redis, membership comes from it, and peers reach this node at the host it
// publishes there.
void check_redis(const Config& config) {
  const ClusterConfig& cluster = config.cluster;
  if (cluster.transport != ClusterTransport::redis) return;
  if (cluster.sharing != Sharing::summary) {
    throw ConfigError(
        "$.cluster.transport",
        "\"redis\" needs sharing \"summary\": Redis carries summaries (got sharing \"" +
            std::string(enum_name(cluster.sharing)) + "\")");
  }
  if (cluster.redis.servers.empty()) {
    throw ConfigError("$.cluster.redis.servers", "at least one server with transport \"redis\"");
  }
  if (cluster.redis.advertise_host.empty() &&
      parse_ip(cluster.peer_listen.address)->is_unspecified()) {
    throw ConfigError("$.cluster.redis.advertise_host",
                      "required when peer_listen's address is a wildcard (" +
                          cluster.peer_listen.address +
                          "): peers reach this node at the host it publishes in Redis");
  }
  // One membership source: Redis's members would contend with discovery's.
  if (!cluster.discovery.name.empty()) {
    throw ConfigError("$.cluster.discovery.name",
                      "not with transport \"redis\": the members come from Redis");
  }
}

}  // namespace

void check_cross_fields(const Config& config) {
  check_listeners(config);
  check_budgets(config);
  check_peers(config);
  check_origin_destination(config);
  check_redis(config);
}

}  // namespace sumcache::config::detail
