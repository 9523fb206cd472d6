#include "config/default_config.h"

namespace sumcache::config {

Config default_config() { return Config{}; }

// Every field at its default, in the order docs/configuration.md describes them. Tests hold
// this text equal to Config{} and to the fields to_json() writes, so none can drift.
std::string default_config_json() {
  return R"json({
  "node": { "id": "sumcache-1" },
  "mode": "forward",
  "workers": 0,
  "listen": [ { "address": "127.0.0.1", "port": 3128, "http2": true, "h2c": false } ],
  "admin": {
    "enabled": true,
    "address": "127.0.0.1",
    "port": 3129,
    "token": "",
    "token_file": "",
    "allow": [ "127.0.0.0/8", "::1/128" ]
  },
  "forward": {
    "connect_ports": [ 443 ],
    "allow_ports": [ "80", "443", "1025-65535" ]
  },
  "access": {
    "allow_clients": [ "127.0.0.0/8", "::1/128", "10.0.0.0/8", "172.16.0.0/12",
                       "192.168.0.0/16", "fc00::/7" ],
    "deny_destinations": [ "169.254.0.0/16", "fe80::/10" ]
  },
  "limits": {
    "max_header_bytes": "64KiB",
    "max_body_bytes": "1GiB",
    "max_connections": 10000,
    "client_idle_timeout_ms": 60000,
    "client_request_timeout_ms": 30000,
    "upstream_connect_timeout_ms": 5000,
    "upstream_first_byte_timeout_ms": 30000,
    "upstream_io_timeout_ms": 30000,
    "upstream_idle_timeout_ms": 60000,
    "upstream_max_idle_per_origin": 32,
    "upstream_unsafe_reuse_ms": 1000,
    "collapsed_wait_ms": 30000,
    "drain_timeout_ms": 10000,
    "dns_timeout_ms": 5000,
    "http2_max_concurrent_streams": 128,
    "http2_max_resets_per_second": 100,
    "http2_max_control_frames_per_second": 100,
    "http2_max_continuations": 8,
    "http2_header_table_size": 4096
  },
  "cache": {
    "memory": { "max_bytes": "256MiB" },
    "disk": { "enabled": true, "path": "./var/cache", "max_bytes": "1GiB", "fsync": false },
    "max_object_bytes": "64MiB",
    "heuristic_fraction": 0.1,
    "heuristic_max_ms": 86400000,
    "shards": 64,
    "tag_header": "Surrogate-Key",
    "tag_header_pass": false,
    "max_tags_per_object": 64,
    "tag_index_max_entries": 1000000,
    "max_variants_per_key": 200,
    "targeted_fields": ["CDN-Cache-Control"]
  },
  "filter": {
    "kind": "counting-bloom",
    "bits_per_entry": 16,
    "hashes": 4,
    "target_fpr": 0,
    "objective": "memory",
    "expected_entries": 0,
    "avg_object_bytes": "16KiB"
  },
  "log": {
    "level": "info",
    "access_log": "-",
    "access_format": "squid",
    "error_log": "-"
  },
  "cluster": {
    "sharing": "none",
    "transport": "mesh",
    "secret": "",
    "secret_file": "",
    "peer_listen": { "address": "127.0.0.1", "port": 3130 },
    "object_listen": { "address": "127.0.0.1", "port": 3132 },
    "icp_port": 3131,
    "update_threshold_percent": 1.0,
    "update_max_interval_ms": 5000,
    "summary_expiry_ms": 60000,
    "peer_timeout_ms": 2000,
    "store_peer_hits": true,
    "peer_grace_ms": 300000,
    "discovery": { "name": "", "hosts_file": "", "interval_ms": 5000 },
    "miss_policy": "origin",
    "peer_max_connections": 0,
    "peer_head_timeout_ms": 1000,
    "peer_summary_rate": 10.0,
    "peer_summary_burst": 20,
    "peer_max_filter_bits": 0,
    "peer_max_fingerprints": 0,
    "peer_allow": [],
    "tls": { "enabled": false, "cert_file": "", "key_file": "", "ca_file": "" },
    "squid_digest": { "enabled": true, "rebuild_interval_ms": 60000, "hostnames": [] },
    "redis": {
      "servers": [],
      "username": "",
      "password": "",
      "password_file": "",
      "tls": false,
      "ca_file": "",
      "cert_file": "",
      "key_file": "",
      "server_name": "",
      "key_prefix": "sumcache",
      "stream_length": 256,
      "heartbeat_ms": 1000,
      "member_expiry_ms": 5000,
      "connect_timeout_ms": 1000,
      "command_timeout_ms": 1000,
      "block_ms": 1000,
      "advertise_host": ""
    }
  },
  "peers": []
}
)json";
}

}  // namespace sumcache::config
