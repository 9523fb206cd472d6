#pragma once
// The Redis transport's key names and stream IDs (docs/peers.md, "Redis
// transport"), pure. With prefix P:
//   P:members          hash  node id -> signed member record
//   P:seen             hash  node id -> the server's TIME (ms) at its last heartbeat
//   P:node:<id>:full   string  the node's latest full summary message
//   P:node:<id>:deltas stream  its deltas, entry ID <sequence>-0, field "m"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sumcache::daemon {

class RedisKeys {
 public:
  explicit RedisKeys(std::string prefix) : prefix_(std::move(prefix)) {}
  std::string members() const { return prefix_ + ":members"; }
  std::string seen() const { return prefix_ + ":seen"; }
  std::string full(std::string_view node) const;
  std::string deltas(std::string_view node) const;

 private:
  std::string prefix_;
};

// The server (of `servers`) holding node `node`'s keys: FNV-1a 64 of the id,
// mod the count. Not Redis Cluster: one XREAD over many streams needs them in
// one slot there, and a node's readers gather its peers' streams per server.
std::size_t redis_shard(std::string_view node, std::size_t servers);

// A delta's stream entry ID: its sequence, then "-0".
std::string stream_id(std::uint64_t sequence);
// The sequence of an ID written by stream_id, strictly: decimal digits without
// a leading zero (but "0"), no overflow, then exactly "-0". nullopt otherwise
// (an entry some other writer added, with "*" or another suffix).
std::optional<std::uint64_t> parse_stream_id(std::string_view id);

}  // namespace sumcache::daemon
