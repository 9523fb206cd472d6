#include "daemon/cache/peer_upstream.h"

#include "daemon/cache/cache_service.h"
#include "daemon/peer/peer_service.h"
#include "daemon/store/object_tags.h"
#include "protocol/invalidation_message.h"

namespace sumcache::daemon {

namespace {

void add_only_if_cached(beast::http::request_header<>& head) {
  const auto prior = head[beast::http::field::cache_control];
  head.set(beast::http::field::cache_control,
           prior.empty() ? std::string("only-if-cached") : std::string(prior) + ", only-if-cached");
}

}  // namespace

beast::http::request_header<> squid_request_head(const CacheRequest& r) {
  beast::http::request_header<> head =
      make_upstream_head(r.client.request(), false, r.route, r.settings, r.client.address_text());
  // Absolute-form: Squid keys it by the URL, as its digest does.
  head.target(r.route.cache_key);
  add_only_if_cached(head);
  return head;
}

std::string_view last_x_cache(const beast::http::response<beast::http::buffer_body>& msg) {
  std::string_view last;
  for (const auto& field : msg.base()) {
    if (beast::iequals(field.name_string(), "X-Cache")) last = field.value();
  }
  return last;
}

beast::http::request_header<> peer_request_head(const CacheRequest& r, const std::string& node_id,
                                                protocol::PeerAuthScope scope) {
  beast::http::request_header<> head =
      make_upstream_head(r.client.request(), false, r.route, r.settings, r.client.address_text());
  // Absolute-form: the peer keys it exactly as we do, in either mode.
  head.target(r.route.cache_key);
  if (scope == protocol::PeerAuthScope::store_only) {
    add_only_if_cached(head);
  } else {
    head.set(protocol::kOwnerFetchHeader, "1");
  }
  head.set(kPeerRequestHeader, node_id);
  const std::string& secret = r.settings.config.cluster.secret;
  if (!secret.empty()) {
    const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    const std::string auth = protocol::sign_peer_request(head.method_string(), head.target(),
                                                         node_id, now, secret, scope);
    if (!auth.empty()) head.set(protocol::kPeerAuthHeader, auth);
  }
  return head;
}

// With cluster.tls, object requests go over TLS to the peer's object
// listener, its certificate checked for its `host`; otherwise to its proxy port.
Origin peer_origin(const config::Config& config, const config::PeerConfig& peer) {
  if (config.cluster.tls.enabled && peer.protocol != config::PeerProtocol::squid_digest) {
    return {true, peer.host, peer.object_port, true};
  }
  return {false, peer.host, peer.http_port};
}

config::LimitsConfig peer_limits(const config::Config& config,
                                 std::chrono::milliseconds first_byte) {
  config::LimitsConfig limits = config.limits;
  limits.upstream_first_byte_timeout_ms = first_byte;
  return limits;
}

bool purged_by_tag(const PeerService& peers, const config::CacheConfig& cache,
                   const beast::http::response<beast::http::buffer_body>& msg) {
  if (!peers.any_tag_tombstone()) return false;
  const TagRules rules{cache.tag_header, cache.max_tags_per_object,
                       protocol::kMaxInvalidationTagBytes};
  ObjectTags tags;
  for (const auto& field : msg.base()) {
    if (beast::iequals(field.name_string(), cache.tag_header)) add_tags(field.value(), rules, tags);
  }
  return tags.too_many || peers.tag_tombstoned(tags.tags);
}

}  // namespace sumcache::daemon
