#pragma once
// A stored response this node cannot prove current (docs/peers.md,
// "Cluster-wide invalidation"): a peer's purges it may have missed (the peer
// restarted, or dropped invalidations before this node acknowledged them)
// could have named it. Such a response is never served or handed to a peer
// without asking the origin first. Pure: the watermark and the time are passed in.

#include <chrono>
#include <cstdint>

#include "daemon/http/use_decision.h"

namespace sumcache::daemon {

// Whether a response received at `response_time` predates `unproven_before_ms`
// (ms since the Unix epoch; 0: nothing is unproven). response_time has whole
// seconds, rounded down, so a response received in the watermark's own second
// counts as before it: the safe side.
bool is_unproven(std::chrono::sys_seconds response_time, std::int64_t unproven_before_ms);

// decide_use's answer `use` for an unproven response: whatever would have
// served it (fresh, stale, stale-while-revalidate) asks the origin instead (a
// conditional request when it has a validator, RFC 9111 §4.3.1, else a plain
// fetch), or under only-if-cached (a peer's request, §5.2.1.7) is a 504; and it
// is never the fallback of stale-if-error (RFC 5861 §4).
UseResult unproven_use(UseResult use, bool has_validator, bool only_if_cached);

}  // namespace sumcache::daemon
