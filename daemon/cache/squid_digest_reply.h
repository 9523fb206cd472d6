#pragma once
// The answer to a request for this node's Squid digest, and when the next
// digest is built: pure decisions (docs/interop.md, "sumcache as a Squid
// digest sibling"), time passed in, unit-tested without sockets.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sumcache::daemon {

// One built digest as it is served.
struct SquidDigestSnapshot {
  std::string body;  // the 128-byte header and the mask
  // When a digest with exactly this body was first built: a rebuild that
  // changes nothing keeps it, so a Squid's If-Modified-Since gets a true 304.
  std::chrono::sys_seconds last_modified{};
  // When the next rebuild will be served: the Expires a Squid schedules by.
  std::chrono::system_clock::time_point next_build{};
  std::uint32_t entries = 0;
  std::uint32_t capacity = 0;
  unsigned used_percent = 0;
};

struct SquidDigestReply {
  unsigned status = 200;
  std::string reason;  // for the 405 and the 503
  std::vector<std::pair<std::string, std::string>> fields;
  bool body = false;  // the snapshot's body follows (a 200 to a GET)
};

// GET and HEAD only (405 with Allow otherwise); 503 with Retry-After before
// the first build; 304 when If-Modified-Since (a valid HTTP-date not after
// `now`) is at or after Last-Modified (RFC 9110 §13.1.3, §15.4.5); else 200
// with Content-Type application/cache-digest, Last-Modified, Expires, as Squid
// serves its own (src/store_digest.cc: 200 "Cache Digest OK").
SquidDigestReply squid_digest_reply(const SquidDigestSnapshot* snapshot, std::string_view method,
                                    std::optional<std::string_view> if_modified_since,
                                    std::chrono::system_clock::time_point now);

// Expires: the next build rounded up to the second (an HTTP-date is whole
// seconds, and a Squid that refetched before it would get the same digest),
// and never before the next second when a build is overdue.
std::chrono::sys_seconds squid_digest_expires(std::chrono::system_clock::time_point next_build,
                                              std::chrono::system_clock::time_point now);

struct SquidDigestSchedule {
  std::chrono::steady_clock::time_point next;
  bool overrun = false;  // the build took longer than the interval
};
// Builds start every `interval` from the last start; one that outlasts the
// interval is an overrun (Squid's "overlap detected"), and the next starts a
// whole interval after it ended rather than at once, so that a store too
// large for the interval costs at most half a core, not a whole one.
SquidDigestSchedule next_squid_digest_build(std::chrono::steady_clock::time_point started,
                                            std::chrono::steady_clock::time_point ended,
                                            std::chrono::milliseconds interval);

}  // namespace sumcache::daemon
