#pragma once
// One reader per section of the schema, each filling its struct from a JSON object and checking
// the rules that lie within that section. Rules across sections are in cross_checks.h.
// Internal to the config library.

#include <string>
#include <vector>

#include "config/config.h"
#include "config/object_reader.h"

namespace sumcache::config::detail {

// Reads the fields of an "address" and "port" pair (listen entries, admin, peer_listen).
void read_address_port(ObjectReader& r, std::string& address, std::uint16_t& port);
void read_listen(const Json& value, const std::string& path, std::vector<ListenConfig>& out);
// listen[].tls and admin.tls.
void read_server_tls(ObjectReader& r, ServerTlsConfig& out);
void read_admin(ObjectReader& r, AdminConfig& out);
void read_reverse(ObjectReader& r, ReverseConfig& out);
void read_forward(ObjectReader& r, ForwardConfig& out);
void read_access(ObjectReader& r, AccessConfig& out);

void read_limits(ObjectReader& r, LimitsConfig& out);
void read_cache(ObjectReader& r, CacheConfig& out);
void read_filter(ObjectReader& r, FilterConfig& out);
void read_log(ObjectReader& r, LogConfig& out);

void read_cluster(ObjectReader& r, ClusterConfig& out);
void read_redis(ObjectReader& r, RedisConfig& out);
void read_peers(const Json& value, const std::string& path, std::vector<PeerConfig>& out);
// One peers[] entry (also the admin's POST /peers body); ConfigError names the field.
PeerConfig read_peer(const Json& value, const std::string& path);
// The summary secret authenticates peers' messages: refuse one short enough to guess.
std::string check_cluster_secret(const std::string& secret);

}  // namespace sumcache::config::detail
