#pragma once
// A node's member record in the Redis transport's P:members hash (docs/peers.md,
// "Redis transport"): its JSON, a "\n", and the lowercase hex HMAC-SHA256 tag
// keyed with the cluster secret over "sumcache-member-v1\n" + the JSON. Redis is
// a transport, not a trusted party: a record whose tag fails never joins.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "config/cluster_config.h"
#include "daemon/peer/redis_bus_stats.h"

namespace sumcache::daemon {

struct MemberRecord {
  std::string id;
  std::string host;  // where peers reach it: object fetches and purges stay direct
  std::uint16_t http_port = 0;
  std::uint16_t peer_port = 0;
  std::uint16_t icp_port = 0;
  std::uint16_t object_port = 0;
  std::uint32_t weight = 1;
  std::uint64_t epoch = 0;  // its summaries' epoch: a new one restarts its sequences
  friend bool operator==(const MemberRecord&, const MemberRecord&) = default;
};

// The signed record; nullopt when libcrypto fails.
std::optional<std::string> encode_member(const MemberRecord& record, std::string_view secret);

struct MemberDecode {
  std::optional<MemberRecord> record;
  RedisRefusal refusal = RedisRefusal::member_malformed;  // when no record
  std::string why;
};
// The record stored under hash field `field`: the tag checked first (nothing
// unauthenticated is parsed), then the JSON strictly: exactly the eight
// fields, of their types and ranges, and an id equal to `field`.
MemberDecode decode_member(std::string_view field, std::string_view stored,
                           std::string_view secret);

// The peer this record describes, as the table holds peers.
config::PeerConfig member_peer(const MemberRecord& record);

}  // namespace sumcache::daemon
