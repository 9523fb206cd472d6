#pragma once
// limits: the resource caps and timeouts of client and upstream connections. All of them can
// change on SIGHUP; ranges and reasons are in docs/configuration.md.

#include <chrono>
#include <cstdint>

#include "config/size_string.h"

namespace sumcache::config {

struct LimitsConfig {
  using ms = std::chrono::milliseconds;

  std::uint64_t max_header_bytes = 64 * kKiB;
  std::uint64_t max_body_bytes = kGiB;  // request bodies
  std::uint32_t max_connections = 10000;
  ms client_idle_timeout_ms{60000};
  ms client_request_timeout_ms{30000};  // to read a whole request head
  ms upstream_connect_timeout_ms{5000};
  ms upstream_first_byte_timeout_ms{30000};
  ms upstream_io_timeout_ms{30000};
  ms upstream_idle_timeout_ms{60000};
  std::uint32_t upstream_max_idle_per_origin = 32;
  // A request that cannot be replayed (POST, PATCH, a body not held whole) takes a pooled
  // connection only when it has been idle less than this; 0: never.
  ms upstream_unsafe_reuse_ms{1000};
  ms collapsed_wait_ms{30000};  // how long a miss waits on another request's fetch of its key
  ms drain_timeout_ms{10000};
  ms dns_timeout_ms{5000};
  // HTTP/2, per client connection (docs/http2.md): streams open at once,
  // RST_STREAM frames and control frames (SETTINGS, PING, PRIORITY) a client
  // may send a second before GOAWAY, CONTINUATION frames per header block, and
  // the HPACK table the client's encoder may use.
  std::uint32_t http2_max_concurrent_streams = 128;
  std::uint32_t http2_max_resets_per_second = 100;
  std::uint32_t http2_max_control_frames_per_second = 100;
  std::uint32_t http2_max_continuations = 8;
  std::uint32_t http2_header_table_size = 4096;
  friend bool operator==(const LimitsConfig&, const LimitsConfig&) = default;
};

}  // namespace sumcache::config
