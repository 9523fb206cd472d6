#pragma once
// cluster and peers: how this node shares what it caches with the other nodes.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "config/proxy_config.h"

namespace sumcache::config {

enum class Sharing { none, summary, icp };
// Where a miss that no summary claims goes (docs/peers.md, "Miss policy"):
// the origin, or the key's owner among the live nodes, which coalesces the
// cluster's concurrent misses into one origin fetch.
enum class MissPolicy { origin, owner };
// What a peer speaks (docs/peers.md): sumcache's summary protocol, or a Squid
// whose Cache Digest this node fetches (docs/interop.md, "Squid as a peer of sumcache").
enum class PeerProtocol { summary, squid_digest };

struct ClusterTlsConfig {
  bool enabled = false;  // absent from the JSON: true when cert_file and key_file are both set
  std::filesystem::path cert_file;
  std::filesystem::path key_file;
  std::filesystem::path ca_file;  // empty: the system store
  friend bool operator==(const ClusterTlsConfig&, const ClusterTlsConfig&) = default;
};

// cluster.discovery (docs/peers.md, "Live membership"): the peers are the
// addresses a DNS name resolves to (or an /etc/hosts-style file lists),
// looked up again every interval_ms; each is reached on this node's own ports.
struct DiscoveryConfig {
  std::string name;                  // empty: no discovery
  std::filesystem::path hosts_file;  // empty: DNS (A and AAAA)
  std::chrono::milliseconds interval_ms{5000};
  friend bool operator==(const DiscoveryConfig&, const DiscoveryConfig&) = default;
};

// cluster.squid_digest (docs/interop.md, "sumcache as a Squid digest sibling"):
// this node's cache served as a Squid Cache Digest at Squid's URL, rebuilt
// from the store's keys every rebuild_interval_ms, for Squid siblings.
struct SquidDigestConfig {
  bool enabled = true;  // Squid's digest_generation defaults to on
  std::chrono::milliseconds rebuild_interval_ms{60000};
  // Names the digest URL may carry besides this node's listener addresses
  // (Squid's visible_hostname and hostname_aliases): "proxy1.example".
  std::vector<std::string> hostnames;
  friend bool operator==(const SquidDigestConfig&, const SquidDigestConfig&) = default;
};

// cluster.transport (docs/peers.md, "Redis transport"): how summaries travel.
// mesh: pushed to every peer over HTTP; redis: published once to Redis, read
// from it by every node, membership kept there too.
enum class ClusterTransport { mesh, redis };

// cluster.redis: the Redis servers a redis transport publishes to. Node ids
// hash onto `servers` (each node's keys on one); the first also holds the
// membership hash. Redis is a transport, not a trusted party: everything read
// from it carries the cluster's HMAC tag.
struct RedisConfig {
  std::vector<Endpoint> servers;  // required with transport redis; address: IP literal or name
  std::string username;           // AUTH username password (ACL); empty: AUTH password
  std::string password;           // inline, or read from password_file by load_config_file
  std::filesystem::path password_file;
  bool tls = false;                 // TLS to every server
  std::filesystem::path ca_file;    // empty: the system store
  std::filesystem::path cert_file;  // client certificate, when the server asks for one
  std::filesystem::path key_file;
  std::string server_name;              // verified name (and SNI); empty: each server's address
  std::string key_prefix = "sumcache";  // keys: <prefix>:members, <prefix>:node:<id>:full, ...
  std::uint32_t stream_length = 256;    // deltas a node's stream keeps (XADD MAXLEN ~)
  std::chrono::milliseconds heartbeat_ms{1000};
  std::chrono::milliseconds member_expiry_ms{5000};  // no heartbeat this long: the node left
  std::chrono::milliseconds connect_timeout_ms{1000};
  std::chrono::milliseconds command_timeout_ms{1000};
  std::chrono::milliseconds block_ms{1000};  // XREAD BLOCK, added to command_timeout_ms
  // The host peers reach this node at (object fetches, purges stay direct);
  // empty: peer_listen's address, which must then not be a wildcard.
  std::string advertise_host;
  friend bool operator==(const RedisConfig&, const RedisConfig&) = default;
};

struct ClusterConfig {
  Sharing sharing = Sharing::none;
  ClusterTransport transport = ClusterTransport::mesh;  // summary mode only
  RedisConfig redis;
  std::string secret;                 // inline, or read from secret_file by load_config_file
  std::filesystem::path secret_file;  // as written; relative to the config file's directory
  Endpoint peer_listen{"127.0.0.1", 3130};
  // With tls.enabled: where peers' object requests arrive, over TLS (docs/peers.md).
  Endpoint object_listen{"127.0.0.1", 3132};
  std::uint16_t icp_port = 3131;  // UDP
  // Publish a summary update once this share of the cached documents is new, or after
  // update_max_interval_ms; the paper measured 1% to 10%.
  double update_threshold_percent = 1.0;
  std::chrono::milliseconds update_max_interval_ms{5000};
  std::chrono::milliseconds summary_expiry_ms{60000};  // an older summary attracts no requests
  std::chrono::milliseconds peer_timeout_ms{2000};
  bool store_peer_hits = true;  // false is Squid's proxy-only
  // A peer down this long leaves the directory (a discovered one the table); 0: never.
  std::chrono::milliseconds peer_grace_ms{300000};
  DiscoveryConfig discovery;
  MissPolicy miss_policy = MissPolicy::origin;
  // The peer listener's guards (docs/peers.md, "What the peer listener accepts").
  std::uint32_t peer_max_connections = 0;  // 0: 2 per peer + 4
  std::chrono::milliseconds peer_head_timeout_ms{1000};
  double peer_summary_rate = 10;           // summaries per second per peer, refilled...
  std::uint32_t peer_summary_burst = 20;   // ...into a bucket of this many
  std::uint64_t peer_max_filter_bits = 0;  // 0: 4 x this node's m, at most 2^28
  // Fingerprints a peer's fingerprint summary may hold here; 0: 4 x this
  // node's expected entries, at least 2^20, at most 2^26.
  std::uint64_t peer_max_fingerprints = 0;
  std::vector<std::string> peer_allow;  // CIDRs; empty: the peers' addresses
  ClusterTlsConfig tls;
  SquidDigestConfig squid_digest;
  friend bool operator==(const ClusterConfig&, const ClusterConfig&) = default;
};

struct PeerConfig {
  std::string id;    // required; unique, and not this node's id
  std::string host;  // required; an IP literal or a DNS name
  std::uint16_t http_port = 3128;
  std::uint16_t peer_port = 3130;
  std::uint16_t icp_port = 3131;
  std::uint32_t weight = 1;
  std::uint16_t object_port = 3132;  // its object_listen port, used with cluster.tls
  // Its admin port, refused as a proxy destination like its peer, object and
  // ICP ports (docs/proxy.md, "Destinations"); 0: this node's own admin.port.
  std::uint16_t admin_port = 0;
  PeerProtocol protocol = PeerProtocol::summary;
  // icp: the address the peer's ICP queries come from when it is not `host` (Squid's
  // udp_outgoing_address); its replies still come from `host`. Empty: `host`.
  std::string icp_source_address{};
  friend bool operator==(const PeerConfig&, const PeerConfig&) = default;
};

}  // namespace sumcache::config
