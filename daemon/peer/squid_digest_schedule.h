#pragma once
// When this node fetches a Squid peer's Cache Digest again (docs/interop.md,
// "Squid as a peer of sumcache"). Squid stamps its digest with Expires = the
// time of its next rewrite (digest_rewrite_period) and a requester refetches
// then; this node does the same, within bounds: never sooner than min_gap
// (a Squid whose Expires is in the past is not hammered), never later than
// max_gap (below cluster.summary_expiry_ms, so a live Squid's digest never
// ages out between fetches). A failed fetch backs off exponentially from
// min_gap up to max_gap. Pure: time is an argument.

#include <chrono>
#include <optional>

namespace sumcache::daemon {

struct DigestSchedule {
  std::chrono::milliseconds min_gap;
  std::chrono::milliseconds max_gap;  // raised to min_gap when below it
};

// From the config: min_gap = cluster.update_max_interval_ms (the cadence a
// summary peer is held to), max_gap = half of cluster.summary_expiry_ms.
DigestSchedule digest_schedule(std::chrono::milliseconds update_max_interval,
                               std::chrono::milliseconds summary_expiry);

// After a fetch answered 200 or 304: Expires measured from the answer's Date
// (the Squid's own clock, so skew between the clocks does not count), or from
// `now` without a Date; an Expires absent, unparsable or past gives min_gap.
std::chrono::milliseconds delay_after_answer(std::optional<std::chrono::sys_seconds> expires,
                                             std::optional<std::chrono::sys_seconds> date,
                                             std::chrono::sys_seconds now,
                                             const DigestSchedule& schedule);

// After `failures` (>= 1) fetches in a row that got no usable digest:
// min_gap, doubled per failure, at most max_gap.
std::chrono::milliseconds delay_after_failure(unsigned failures, const DigestSchedule& schedule);

}  // namespace sumcache::daemon
