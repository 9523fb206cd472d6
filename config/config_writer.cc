#include "config/config_writer.h"

#include "config/enum_names.h"
#include "config/net_syntax.h"

namespace sumcache::config::detail {
namespace {

// Writes "<name>" and "<name>_file" for a secret; parse_config refuses both set at once, so
// as written only one appears when the file is used.
void write_secret(Json& j, const std::string& name, const std::string& value,
                  const std::filesystem::path& file, Secrets secrets) {
  j[name + "_file"] = file.string();
  if (!file.empty() && secrets != Secrets::with_values) return;
  j[name] = secrets == Secrets::redacted && !value.empty() ? "<redacted>" : value;
}

Json write_endpoint(const std::string& address, std::uint16_t port) {
  return {{"address", address}, {"port", port}};
}

Json write_server_tls(const ServerTlsConfig& t) {
  Json certificates = Json::array();
  for (const TlsCertificateConfig& c : t.certificates) {
    certificates.push_back({{"cert_file", c.cert_file.string()},
                            {"key_file", c.key_file.string()},
                            {"ocsp_file", c.ocsp_file.string()}});
  }
  return {{"certificates", certificates},
          {"min_version", enum_name(t.min_version)},
          {"ciphers", t.ciphers},
          {"verify_client", enum_name(t.verify_client)},
          {"client_ca_file", t.client_ca_file.string()},
          {"session_cache_size", t.session_cache_size}};
}

Json write_admin(const AdminConfig& a, Secrets secrets) {
  Json j = write_endpoint(a.address, a.port);
  j["enabled"] = a.enabled;
  j["allow"] = a.allow;
  write_secret(j, "token", a.token, a.token_file, secrets);
  if (a.tls) j["tls"] = write_server_tls(*a.tls);
  return j;
}

Json write_mode_section(const Config& c) {
  if (c.mode == Mode::forward) {
    Json allow = Json::array();
    for (const PortRange& range : c.forward.allow_ports) allow.push_back(format_port_range(range));
    return {{"connect_ports", c.forward.connect_ports}, {"allow_ports", allow}};
  }
  const ReverseConfig& r = c.reverse;
  return {{"origin", format_origin(r.origin)},
          {"host_header", enum_name(r.host_header)},
          {"tls",
           {{"verify", r.tls.verify},
            {"ca_file", r.tls.ca_file.string()},
            {"server_name", r.tls.server_name}}}};
}

Json write_limits(const LimitsConfig& l) {
  return {{"max_header_bytes", l.max_header_bytes},
          {"max_body_bytes", l.max_body_bytes},
          {"max_connections", l.max_connections},
          {"client_idle_timeout_ms", l.client_idle_timeout_ms.count()},
          {"client_request_timeout_ms", l.client_request_timeout_ms.count()},
          {"upstream_connect_timeout_ms", l.upstream_connect_timeout_ms.count()},
          {"upstream_first_byte_timeout_ms", l.upstream_first_byte_timeout_ms.count()},
          {"upstream_io_timeout_ms", l.upstream_io_timeout_ms.count()},
          {"upstream_idle_timeout_ms", l.upstream_idle_timeout_ms.count()},
          {"upstream_max_idle_per_origin", l.upstream_max_idle_per_origin},
          {"upstream_unsafe_reuse_ms", l.upstream_unsafe_reuse_ms.count()},
          {"collapsed_wait_ms", l.collapsed_wait_ms.count()},
          {"drain_timeout_ms", l.drain_timeout_ms.count()},
          {"dns_timeout_ms", l.dns_timeout_ms.count()},
          {"http2_max_concurrent_streams", l.http2_max_concurrent_streams},
          {"http2_max_resets_per_second", l.http2_max_resets_per_second},
          {"http2_max_control_frames_per_second", l.http2_max_control_frames_per_second},
          {"http2_max_continuations", l.http2_max_continuations},
          {"http2_header_table_size", l.http2_header_table_size}};
}

Json write_cache(const CacheConfig& c) {
  return {{"memory", {{"max_bytes", c.memory.max_bytes}}},
          {"disk",
           {{"enabled", c.disk.enabled},
            {"path", c.disk.path.string()},
            {"max_bytes", c.disk.max_bytes},
            {"fsync", c.disk.fsync}}},
          {"max_object_bytes", c.max_object_bytes},
          {"heuristic_fraction", c.heuristic_fraction},
          {"heuristic_max_ms", c.heuristic_max_ms.count()},
          {"shards", c.shards},
          {"tag_header", c.tag_header},
          {"tag_header_pass", c.tag_header_pass},
          {"max_tags_per_object", c.max_tags_per_object},
          {"tag_index_max_entries", c.tag_index_max_entries},
          {"max_variants_per_key", c.max_variants_per_key},
          {"targeted_fields", c.targeted_fields}};
}

Json write_redis(const RedisConfig& r, Secrets secrets) {
  Json servers = Json::array();
  for (const Endpoint& s : r.servers) servers.push_back(write_endpoint(s.address, s.port));
  Json j = {{"servers", servers},
            {"username", r.username},
            {"tls", r.tls},
            {"ca_file", r.ca_file.string()},
            {"cert_file", r.cert_file.string()},
            {"key_file", r.key_file.string()},
            {"server_name", r.server_name},
            {"key_prefix", r.key_prefix},
            {"stream_length", r.stream_length},
            {"heartbeat_ms", r.heartbeat_ms.count()},
            {"member_expiry_ms", r.member_expiry_ms.count()},
            {"connect_timeout_ms", r.connect_timeout_ms.count()},
            {"command_timeout_ms", r.command_timeout_ms.count()},
            {"block_ms", r.block_ms.count()},
            {"advertise_host", r.advertise_host}};
  write_secret(j, "password", r.password, r.password_file, secrets);
  return j;
}

Json write_cluster(const ClusterConfig& c, Secrets secrets) {
  Json j = {{"sharing", enum_name(c.sharing)},
            {"transport", enum_name(c.transport)},
            {"redis", write_redis(c.redis, secrets)},
            {"peer_listen", write_endpoint(c.peer_listen.address, c.peer_listen.port)},
            {"object_listen", write_endpoint(c.object_listen.address, c.object_listen.port)},
            {"icp_port", c.icp_port},
            {"update_threshold_percent", c.update_threshold_percent},
            {"update_max_interval_ms", c.update_max_interval_ms.count()},
            {"summary_expiry_ms", c.summary_expiry_ms.count()},
            {"peer_timeout_ms", c.peer_timeout_ms.count()},
            {"store_peer_hits", c.store_peer_hits},
            {"peer_grace_ms", c.peer_grace_ms.count()},
            {"discovery",
             {{"name", c.discovery.name},
              {"hosts_file", c.discovery.hosts_file.string()},
              {"interval_ms", c.discovery.interval_ms.count()}}},
            {"miss_policy", enum_name(c.miss_policy)},
            {"peer_max_connections", c.peer_max_connections},
            {"peer_head_timeout_ms", c.peer_head_timeout_ms.count()},
            {"peer_summary_rate", c.peer_summary_rate},
            {"peer_summary_burst", c.peer_summary_burst},
            {"peer_max_filter_bits", c.peer_max_filter_bits},
            {"peer_max_fingerprints", c.peer_max_fingerprints},
            {"peer_allow", c.peer_allow},
            {"tls",
             {{"enabled", c.tls.enabled},
              {"cert_file", c.tls.cert_file.string()},
              {"key_file", c.tls.key_file.string()},
              {"ca_file", c.tls.ca_file.string()}}},
            {"squid_digest",
             {{"enabled", c.squid_digest.enabled},
              {"rebuild_interval_ms", c.squid_digest.rebuild_interval_ms.count()},
              {"hostnames", c.squid_digest.hostnames}}}};
  write_secret(j, "secret", c.secret, c.secret_file, secrets);
  return j;
}

Json write_peers(const std::vector<PeerConfig>& peers) {
  Json j = Json::array();
  for (const PeerConfig& p : peers) {
    j.push_back({{"id", p.id},
                 {"host", p.host},
                 {"http_port", p.http_port},
                 {"peer_port", p.peer_port},
                 {"icp_port", p.icp_port},
                 {"object_port", p.object_port},
                 {"weight", p.weight},
                 {"protocol", enum_name(p.protocol)}});
    if (!p.icp_source_address.empty()) j.back()["icp_source_address"] = p.icp_source_address;
    if (p.admin_port != 0) j.back()["admin_port"] = p.admin_port;
  }
  return j;
}

}  // namespace

Json write_config(const Config& c, Secrets secrets) {
  Json listen = Json::array();
  for (const ListenConfig& e : c.listen) {
    listen.push_back(write_endpoint(e.address, e.port));
    if (e.tls) listen.back()["tls"] = write_server_tls(*e.tls);
    listen.back()["http2"] = e.http2;
    listen.back()["h2c"] = e.h2c;
  }
  const FilterConfig& f = c.filter;
  const LogConfig& log = c.log;
  Json j = {{"node", {{"id", c.node.id}}},
            {"mode", enum_name(c.mode)},
            {"workers", c.workers},
            {"listen", listen},
            {"admin", write_admin(c.admin, secrets)},
            {"access",
             {{"allow_clients", c.access.allow_clients},
              {"deny_destinations", c.access.deny_destinations}}},
            {"limits", write_limits(c.limits)},
            {"cache", write_cache(c.cache)},
            {"filter",
             {{"kind", enum_name(f.kind)},
              {"bits_per_entry", f.bits_per_entry},
              {"hashes", f.hashes},
              {"target_fpr", f.target_fpr},
              {"objective", enum_name(f.objective)},
              {"expected_entries", f.expected_entries},
              {"avg_object_bytes", f.avg_object_bytes}}},
            {"log",
             {{"level", enum_name(log.level)},
              {"access_log", log.access_log},
              {"access_format", enum_name(log.access_format)},
              {"error_log", log.error_log}}},
            {"cluster", write_cluster(c.cluster, secrets)},
            {"peers", write_peers(c.peers)}};
  j[enum_name(c.mode)] = write_mode_section(c);
  return j;
}

}  // namespace sumcache::config::detail
