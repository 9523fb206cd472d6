#pragma once
// Whether a request may go out on a pooled upstream connection, and whether it
// may be sent again on a fresh one after a reused connection failed. A pooled
// connection can be closed by the origin at any moment (its idle timeout), so
// a request on it may fail before any answer: only a request that is safe to
// send twice is retried, and the others avoid connections that idled long.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string_view>

namespace sumcache::daemon {

// The proxy keeps a copy of a request body up to this size while sending it,
// so that a PUT or DELETE with a body can be sent again.
inline constexpr std::uint64_t kReplayBodyLimit = 64 * 1024;

// RFC 9110 §9.2.2: PUT, DELETE and the safe methods (GET, HEAD, OPTIONS,
// TRACE) are idempotent. Methods are case-sensitive (§9.1); one we do not know
// is not.
bool is_idempotent_method(std::string_view method);

// How much of the request body the proxy holds.
enum class BodyHold {
  none,     // the request has no body
  whole,    // every body byte is (or, by its declared length, will be) in the copy
  partial,  // some bytes went upstream and are no longer held, or may not fit
};

// Before sending: a body declared by Content-Length within kReplayBodyLimit
// will be held whole; a larger or chunked one may not be.
BodyHold planned_body_hold(bool has_body, std::optional<std::uint64_t> content_length);

// RFC 9112 §9.3.1: "A proxy MUST NOT automatically retry non-idempotent
// requests"; an idempotent one can be sent again only if its body is at hand.
bool may_replay(std::string_view method, BodyHold body);

// Before sending: the longest a pooled connection may have been idle to carry
// the request. One that can be replayed takes any pooled connection (a failure
// is retried); one that cannot only a connection idle less than
// `unsafe_reuse` (limits.upstream_unsafe_reuse_ms; 0: never a pooled one).
std::chrono::milliseconds max_idle_for_reuse(bool replayable,
                                             std::chrono::milliseconds unsafe_reuse);

struct FailedAttempt {
  bool reused = false;         // the connection came from the pool
  bool response_seen = false;  // a response byte arrived, or an interim response was relayed
  bool replayable = false;     // may_replay with the body held now
  int attempt = 0;             // 0 for the first
};

// After a failure: a reused connection that failed before any response byte
// was most likely closed by the origin while idle; the request is sent once
// more on a fresh connection when it can be replayed.
bool retry_on_fresh_connection(const FailedAttempt& failed);

}  // namespace sumcache::daemon
