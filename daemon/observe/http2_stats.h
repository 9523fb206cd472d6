#pragma once
// HTTP/2 to clients (docs/http2.md): connections and streams served, and what
// this node cut: a connection sent GOAWAY for a reason below, a stream reset.
// One set per worker, written by its thread with relaxed atomics.

#include <array>
#include <atomic>
#include <cstdint>

namespace sumcache::daemon {

// Why this node ended a client's HTTP/2 connection with GOAWAY.
enum class Http2Goaway {
  rapid_reset,         // more RST_STREAM a second than http2_max_resets_per_second
  control_flood,       // SETTINGS, PING or PRIORITY past http2_max_control_frames_per_second
  continuation_flood,  // a header block of more than http2_max_continuations frames
  protocol_error,      // anything else nghttp2 refused (bad frames, HPACK errors, floods)
  header_timeout,      // a header block open past limits.client_request_timeout_ms
  idle,                // no stream for limits.client_idle_timeout_ms
};
inline constexpr std::size_t kHttp2Goaways = 6;

// Why this node reset one stream.
enum class Http2Reset {
  header_too_large,  // decoded fields past limits.max_header_bytes
  body_too_large,    // past limits.max_body_bytes
  stalled,           // its window stayed shut past the write timeout
  incomplete,        // its response could not be finished (an upstream cut, a disk error)
};
inline constexpr std::size_t kHttp2Resets = 4;

const char* to_string(Http2Goaway why);
const char* to_string(Http2Reset why);

struct Http2Stats {
  std::atomic<std::uint64_t> connections{0};
  std::atomic<std::uint64_t> streams{0};
  std::array<std::atomic<std::uint64_t>, kHttp2Goaways> goaways{};
  std::array<std::atomic<std::uint64_t>, kHttp2Resets> resets{};

  void count(Http2Goaway why) {
    goaways[static_cast<std::size_t>(why)].fetch_add(1, std::memory_order_relaxed);
  }
  void count(Http2Reset why) {
    resets[static_cast<std::size_t>(why)].fetch_add(1, std::memory_order_relaxed);
  }
};

}  // namespace sumcache::daemon
