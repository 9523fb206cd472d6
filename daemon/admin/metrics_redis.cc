#include "daemon/admin/metrics_redis.h"

namespace sumcache::daemon {

void write_redis_metrics(PrometheusWriter& w, const RedisBusStats& s) {
  w.family("sumcache_redis_up", "gauge",
           "1 while both links to the Redis server (commands, blocking reads) are connected.");
  for (const auto& server : s.servers) {
    w.sample("sumcache_redis_up", {{"server", server.server}}, std::uint64_t{server.up});
  }
  w.family("sumcache_redis_connects_total", "counter",
           "Connection attempts to the Redis server, by result.");
  for (const auto& server : s.servers) {
    w.sample("sumcache_redis_connects_total", {{"server", server.server}, {"result", "ok"}},
             server.connects);
    w.sample("sumcache_redis_connects_total", {{"server", server.server}, {"result", "failed"}},
             server.connect_failures);
  }
  w.family("sumcache_redis_commands_total", "counter", "Commands written to the Redis server.");
  for (const auto& server : s.servers) {
    w.sample("sumcache_redis_commands_total", {{"server", server.server}}, server.commands);
  }
  w.family("sumcache_redis_bytes_total", "counter",
           "RESP bytes to and from the Redis server, by direction.");
  for (const auto& server : s.servers) {
    w.sample("sumcache_redis_bytes_total", {{"server", server.server}, {"direction", "sent"}},
             server.bytes_sent);
    w.sample("sumcache_redis_bytes_total", {{"server", server.server}, {"direction", "received"}},
             server.bytes_received);
  }
  w.family("sumcache_redis_messages_total", "counter",
           "Summary messages written to Redis (published) and applied from it (read), by kind.");
  w.sample("sumcache_redis_messages_total", {{"direction", "published"}, {"kind", "full"}},
           s.published_full);
  w.sample("sumcache_redis_messages_total", {{"direction", "published"}, {"kind", "delta"}},
           s.published_delta);
  w.sample("sumcache_redis_messages_total", {{"direction", "read"}, {"kind", "full"}}, s.read_full);
  w.sample("sumcache_redis_messages_total", {{"direction", "read"}, {"kind", "delta"}},
           s.read_delta);
  w.family("sumcache_redis_messages_refused_total", "counter",
           "Member records, summary messages and replies read from Redis and refused, by reason.");
  for (std::size_t i = 0; i < kRedisRefusals; ++i) {
    w.sample("sumcache_redis_messages_refused_total",
             {{"reason", to_string(static_cast<RedisRefusal>(i))}}, s.refused[i]);
  }
  w.single("sumcache_redis_resyncs_total", "counter",
           "Peers read again from their full summary after a gap in their stream.", s.resyncs);
  w.single("sumcache_redis_outages_total", "counter",
           "Heartbeats, reads and writes that found Redis away (the node served on).", s.outages);
  w.single("sumcache_redis_members", "gauge",
           "Live verified members in Redis, this node included, at the last heartbeat.",
           s.members);
}

nlohmann::ordered_json redis_json(const RedisBusStats& s) {
  nlohmann::ordered_json servers = nlohmann::ordered_json::array();
  for (const auto& server : s.servers) {
    servers.push_back({{"server", server.server},
                       {"up", server.up},
                       {"connects", server.connects},
                       {"connect_failures", server.connect_failures},
                       {"commands", server.commands},
                       {"bytes_sent", server.bytes_sent},
                       {"bytes_received", server.bytes_received}});
  }
  nlohmann::ordered_json refused = nlohmann::ordered_json::object();
  for (std::size_t i = 0; i < kRedisRefusals; ++i) {
    refused[to_string(static_cast<RedisRefusal>(i))] = s.refused[i];
  }
  return {{"servers", servers},
          {"members", s.members},
          {"messages_published", {{"full", s.published_full}, {"delta", s.published_delta}}},
          {"messages_read", {{"full", s.read_full}, {"delta", s.read_delta}}},
          {"refused", refused},
          {"resyncs", s.resyncs},
          {"outages", s.outages}};
}

}  // namespace sumcache::daemon
