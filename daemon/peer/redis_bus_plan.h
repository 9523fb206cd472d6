#pragma once
// The Redis transport's decisions (docs/peers.md, "Redis transport"), pure:
// who is a live member from the membership hashes and the server's clock, what
// an XREAD reply holds, and when a node rewrites its full summary. RedisBus
// carries them out on the peer thread.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "daemon/peer/redis_bus_stats.h"
#include "daemon/peer/redis_member.h"
#include "daemon/redis/redis_reply.h"

namespace sumcache::daemon {

using RedisPairs = std::vector<std::pair<std::string, std::string>>;

// An HGETALL reply as (field, value) pairs: an array of an even number of
// strings; nullopt for any other shape.
std::optional<RedisPairs> hash_pairs(RedisReply&& reply);
// A TIME reply in ms since the Unix epoch: two decimal strings, seconds and
// microseconds (under 10^6); nullopt for any other shape.
std::optional<std::int64_t> time_ms(const RedisReply& reply);

struct RedisMembershipInput {
  RedisPairs members;  // HGETALL P:members
  RedisPairs seen;     // HGETALL P:seen
  std::int64_t now_ms = 0;  // TIME, in the same pipeline
  std::chrono::milliseconds expiry{5000};  // cluster.redis.member_expiry_ms
  std::string self;    // this node's id: neither a peer nor reaped
  std::string secret;  // the cluster's
};

// A stale member: both its fields go, by a script that deletes them only
// while its seen value is still `seen` ("" when it has none), so a node that
// heartbeats meanwhile stays.
struct RedisReap {
  std::string id;
  std::string seen;
  friend bool operator==(const RedisReap&, const RedisReap&) = default;
};

struct RedisMemberRefused {
  std::string id;
  std::string record;  // as stored: refused once per distinct record
  RedisRefusal reason = RedisRefusal::member_malformed;
  std::string why;
};

struct RedisMembershipPlan {
  std::vector<MemberRecord> live;  // verified, heartbeat within expiry; not this node
  std::vector<RedisReap> reap;
  std::vector<RedisMemberRefused> refused;
};

// A member is live while now - seen <= expiry, seen being the server's clock
// at its last heartbeat (one clock for the cluster). Members with no seen
// entry, and seen entries with no member, are reaped.
RedisMembershipPlan plan_redis_membership(const RedisMembershipInput& in);

// One entry of an XREAD reply.
struct RedisStreamEntry {
  std::string node;  // whose stream it came from
  std::string id;    // the entry ID as Redis gave it: the next read starts after it
  std::optional<std::uint64_t> sequence;  // nullopt: refused (entry_malformed)
  std::string message;                    // field "m"'s bytes
  std::string why;                        // when refused
};

struct RedisXread {
  std::vector<RedisStreamEntry> entries;  // in the reply's order (per stream: ID order)
  std::string error;  // non-empty: the reply's shape is wrong; no entry is usable
};

// An XREAD reply over the streams `streams` (key -> node id): nil (the block
// timed out) is no entry; otherwise an array of [key, [[id, [field, value...]]...]]
// whose keys are among `streams`. An entry whose ID is not "<sequence>-0" or
// whose fields are not exactly ["m", message] is refused on its own.
RedisXread parse_xread(RedisReply&& reply, const std::map<std::string, std::string>& streams);

// What the publisher knows of its full summary in Redis.
struct RedisFullState {
  // None written in this epoch, or since a reconnect, or a delta went
  // missing (not encoded, or not written): readers must start over from a full.
  bool stale = true;
  std::uint64_t sequence = 0;  // the full's, when not stale
};

// Whether the round that makes `sequence` must also rewrite the full: when
// stale, or once the stream (trimmed to about stream_length entries) might no
// longer reach back to it, so a reader that GETs the full always finds the
// stream continuing from it.
bool redis_full_due(const RedisFullState& full, std::uint64_t sequence,
                    std::uint32_t stream_length);

}  // namespace sumcache::daemon
