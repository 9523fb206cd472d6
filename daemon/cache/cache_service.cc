#include "daemon/cache/cache_service.h"

#include "daemon/cache/cache_fill.h"
#include "daemon/cache/cache_request.h"
#include "daemon/cache/cached_meta.h"
#include "daemon/cache/disk_fill_sink.h"
#include "daemon/cache/disk_hit.h"
#include "daemon/cache/hit_writer.h"
#include "daemon/cache/invalid_targeted_field.h"
#include "daemon/cache/store_io_wait.h"
#include "daemon/cache/store_on_fill.h"
#include "daemon/exchange/header_convert.h"
#include "daemon/exchange/response_relay.h"
#include "daemon/http/cacheability.h"
#include "daemon/http/freshness.h"
#include "daemon/http/invalidation.h"
#include "daemon/http/targeted_cache_control.h"
#include "daemon/http/unproven_use.h"
#include "daemon/http/use_decision.h"
#include "daemon/http/vary.h"
#include "daemon/peer/peer_service.h"

namespace sumcache::daemon {

HeuristicPolicy heuristic_policy(const config::Config& config) {
  HeuristicPolicy policy;
  policy.last_modified_fraction = config.cache.heuristic_fraction;
  policy.max_lifetime =
      std::chrono::duration_cast<std::chrono::seconds>(config.cache.heuristic_max_ms);
  return policy;
}

awaitable<unsigned> CacheService::serve(WorkerContext& worker, const Settings& settings,
                                        ClientExchange& client, const Route& route,
                                        AccessRecord& record, PeerScope peer) {
  const auto& req = client.request();
  CacheRequest r{worker,
                 settings,
                 client,
                 route,
                 record,
                 to_header_list(req),
                 {},
                 {},
                 req.method() == beast::http::verb::head,
                 false,
                 false,
                 false,
                 std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now())};
  r.directives = request_directives(r.headers);
  // The headers beside the MAC are not signed (docs/protocol.md): the store-only
  // promise does not rest on the request's own only-if-cached.
  if (peer == PeerScope::store_only) r.directives.only_if_cached = true;
  r.conditional =
      has_field(r.headers, "If-None-Match") || has_field(r.headers, "If-Modified-Since");
  r.ranged = has_field(r.headers, "Range");
  r.from_peer = peer != PeerScope::none || has_field(r.headers, kPeerRequestHeader);
  r.hash = store_.hash_key(route.cache_key);
  if (!r.directives.no_store) {
    std::vector<DiskCandidate> on_disk;  // allocates only when a disk-only variant turns up
    auto c = find_candidate(r, on_disk);
    if (!c && !on_disk.empty()) c = co_await find_on_disk(r, std::move(on_disk));
    if (c) {
      const UseResult use = use_of(r, *c);
      switch (use.decision) {
        case UseDecision::serve_fresh:
          co_return co_await serve_stored(r, *c, use.age, CacheResult::hit);
        case UseDecision::serve_stale:
          co_return co_await serve_stored(r, *c, use.age, CacheResult::stale_hit);
        case UseDecision::serve_stale_while_revalidate:
          revalidate_in_background(r, *c);
          co_return co_await serve_stored(r, *c, use.age, CacheResult::stale_hit);
        case UseDecision::revalidate:
          co_return co_await revalidate(r, *c, use.stale_if_error);
        case UseDecision::gateway_timeout:
          break;
        case UseDecision::must_fetch:
          co_return co_await fetch(r, use.stale_if_error ? &*c : nullptr, true);
      }
    }
  }
  if (!r.directives.no_store) {
    if (auto served = co_await serve_partial(r)) co_return *served;
    if (auto served = co_await complete_partial(r)) co_return *served;
  }
  if (r.directives.only_if_cached) {
    record.result = CacheResult::miss;
    co_return co_await send_error(client, settings, beast::http::status::gateway_timeout,
                                  "only-if-cached: not in this cache", req.version());
  }
  co_return co_await fetch(r, nullptr, true);
}

namespace {

// The request's secondary key under each group of stored variants (RFC 9111
// §4.1; a group is the Vary field names, vary_fields): the store looks each
// one up by its hash. "" for the group of responses without Vary.
class RequestVariants final : public VariantSelector {
 public:
  explicit RequestVariants(const HeaderList& request) : request_(request) {}
  bool select(std::string_view group, std::string& variant) override {
    if (group.empty()) {
      variant.clear();
      return true;
    }
    auto key = secondary_key(group, request_);
    if (!key) return false;
    variant = std::move(*key);
    return true;
  }

 private:
  const HeaderList& request_;
};

}  // namespace

std::optional<Candidate> CacheService::find_candidate(const CacheRequest& r,
                                                      std::vector<DiskCandidate>& on_disk) {
  // Reused by every lookup on this thread: a memory hit allocates nothing once warm.
  thread_local std::vector<ObjectPtr> variants;
  RequestVariants select(r.headers);
  store_.find(r.route.cache_key, r.hash, select, variants, &on_disk);
  return pick_variant(r, variants);
}

awaitable<std::optional<Candidate>> CacheService::find_on_disk(const CacheRequest& r,
                                                               std::vector<DiskCandidate> on_disk) {
  std::function<std::vector<ObjectPtr>()> open = [&store = store_, key = r.route.cache_key,
                                                  hash = r.hash, on_disk = std::move(on_disk)] {
    return store.find_on_disk(key, hash, on_disk);
  };
  auto opened = co_await run_on_store_io(store_, r.settings.config.limits.upstream_io_timeout_ms,
                                         std::move(open));
  if (!opened) co_return std::nullopt;  // the disk did not answer in time: a miss
  co_return pick_variant(r, *opened);
}

// The variant the request's Vary fields select, the most recent when several
// do (RFC 9111 §4: an origin that changed its Vary leaves older variants
// behind, at most one per Vary list); empties `variants`, so that it keeps
// no object alive. The store found them by hash: each is checked whole here.
std::optional<Candidate> CacheService::pick_variant(const CacheRequest& r,
                                                    std::vector<ObjectPtr>& variants) {
  std::optional<Candidate> found;
  for (auto& object : variants) {
    auto meta = decode_meta(object->meta);
    if (!meta) {
      r.worker.shared.log.warn("unreadable cache meta for " + object->key + ": removed");
      store_.remove_variant(object->key, object->variant);
      continue;
    }
    if (vary_matches(meta->vary, object->variant, r.headers) &&
        (!found || generated_at(meta->freshness) > generated_at(found->meta.freshness))) {
      found = Candidate{std::move(object), std::move(*meta)};
    }
  }
  variants.clear();
  return found;
}

UseResult CacheService::use_of(const CacheRequest& r, const Candidate& c) const {
  const UseResult use = decide_use(c.meta.freshness, c.meta.directives, r.directives, r.now);
  if (peers_ == nullptr ||
      !is_unproven(c.meta.freshness.response_time, peers_->unproven_before_ms())) {
    return use;
  }
  return unproven_use(use, c.meta.freshness.has_validator, r.directives.only_if_cached);
}

awaitable<unsigned> CacheService::serve_stored(CacheRequest& r, const Candidate& c,
                                               std::chrono::seconds age, CacheResult result) {
  HitRequest hit{r.head_method,
                 r.client.request().version(),
                 r.conditional,
                 r.ranged,
                 &r.headers,
                 r.now,
                 r.settings.config.limits.upstream_io_timeout_ms,
                 hidden_tag_field(r)};
  std::shared_ptr<const std::string> body = c.object->body;
  if (!body && c.object->body_size > kDiskChunk) {
    // Too large to hold: streamed from its file (docs/store.md, "Disk hits").
    std::function<Result<BodyReader>()> open = [&store = store_, object = c.object] {
      return store.open_body(*object);
    };
    auto reader = co_await run_on_store_io(store_, hit.write_timeout, std::move(open));
    if (!reader || !*reader) co_return co_await serve_unreadable(r);
    r.record.result = result;
    r.record.from_disk = true;
    r.record.hierarchy = {};
    co_return co_await write_disk_hit(r.client, hit, *c.object, store_, std::move(*reader).value(),
                                      age, to_string(result));
  }
  if (!body) {
    // Read whole on the I/O pool, checksum verified, and promoted into the
    // memory tier when it fits.
    std::function<Result<std::shared_ptr<const std::string>>()> load =
        [&store = store_, object = c.object] { return store.load_body(object); };
    auto loaded = co_await run_on_store_io(store_, hit.write_timeout, std::move(load));
    if (!loaded || !*loaded) co_return co_await serve_unreadable(r);
    body = std::move(*loaded).value();
  }
  r.record.result = result;
  r.record.from_disk = !c.object->body;
  r.record.hierarchy = {};
  co_return co_await write_hit(r.client, hit, *c.object, *body, age, to_string(result));
}

// A stored body that cannot be read (damaged on disk, or the disk too slow) is
// a miss, which only-if-cached must not fetch (RFC 9111 §5.2.1.7).
awaitable<unsigned> CacheService::serve_unreadable(CacheRequest& r) {
  if (!r.directives.only_if_cached) co_return co_await fetch(r, nullptr, true);
  r.record.result = CacheResult::miss;
  co_return co_await send_error(r.client, r.settings, beast::http::status::gateway_timeout,
                                "only-if-cached: not in this cache", r.client.request().version());
}

awaitable<unsigned> CacheService::fetch(CacheRequest& r, const Candidate* stale,
                                        bool may_collapse) {
  const auto& limits = r.settings.config.limits;
  std::optional<InflightLease> lease;
  if (may_collapse && r.fills_cache()) {
    auto ticket = inflight_.join(r.route.cache_key, r.worker.executor, limits.collapsed_wait_ms);
    if (!ticket.leader) {
      co_await ticket.wait->async_wait(use_nothrow);
      r.now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
      std::vector<DiskCandidate> on_disk;
      auto c = find_candidate(r, on_disk);
      if (!c && !on_disk.empty()) c = co_await find_on_disk(r, std::move(on_disk));
      if (c) {
        const UseResult use = use_of(r, *c);
        if (use.decision == UseDecision::serve_fresh) {
          co_return co_await serve_stored(r, *c, use.age, CacheResult::collapsed_hit);
        }
      }
      co_return co_await fetch(r, stale, false);
    }
    lease.emplace(inflight_, r.route.cache_key);
  }
  if (peers_ != nullptr && stale == nullptr && r.fills_cache() && !r.from_peer) {
    if (auto served = co_await fetch_from_peers(r)) co_return *served;
    if (auto served = co_await fetch_from_owner(r)) co_return *served;
  }
  UpstreamRequest up{
      r.route.upstream,
      r.worker.tls_server_name,
      make_upstream_head(r.client.request(), r.client.body_chunked(), r.route, r.settings, r.client.address_text()),
      r.head_method,
      {}};
  auto [ec, res] = co_await exchange_with_upstream(r.worker, limits, up, &r.client);
  if (ec) {
    count_upstream_failure(r.worker, ec);
    if (stale != nullptr) {
      co_return co_await serve_stored(r, *stale, current_age(stale->meta.freshness, r.now),
                                      CacheResult::stale_hit);
    }
    r.record.result = CacheResult::miss;
    co_return co_await send_upstream_error(r.worker.shared, r.client, r.settings, r.route, ec,
                                           r.client.request().version());
  }
  if (stale != nullptr && is_stale_if_error_status(res->parser->get().result_int())) {
    co_await finish_upstream(r.worker, limits, std::move(res));
    co_return co_await serve_stored(r, *stale, current_age(stale->meta.freshness, r.now),
                                    CacheResult::stale_hit);
  }
  co_return co_await relay_and_store(r, std::move(res), CacheResult::miss);
}

awaitable<unsigned> CacheService::relay_and_store(CacheRequest& r,
                                                  std::unique_ptr<UpstreamResponse> res,
                                                  CacheResult result, bool store) {
  const auto& limits = r.settings.config.limits;
  auto& msg = res->parser->get();
  ResponseFacts facts{static_cast<int>(msg.result_int()),
                      std::string(msg.reason()),
                      to_header_list(msg.base()),
                      {},
                      exchange_times(res->request_time, res->response_time)};
  auto chosen = choose_response_directives(facts.fields, r.settings.config.cache.targeted_fields);
  facts.directives = std::move(chosen.directives);
  if (!chosen.invalid_field.empty()) {
    note_invalid_targeted_field(r.worker, chosen.invalid_field, r.route.cache_key);
  }
  std::optional<std::string> variant;
  std::optional<PartialFill> partial;
  // A 200 to a Range request is the complete representation (RFC 9110
  // §14.2: the origin ignored Range) and is stored like any other; a 206 is
  // kept as a partial response (RFC 9111 §3.3).
  if (store && (r.fills_cache() || (r.keeps_partial() && facts.status == 200))) {
    variant = fill_variant(r.headers, r.directives, facts, policy_.max_object_bytes);
  } else if (store && r.keeps_partial()) {
    partial = partial_to_keep(r, facts);
  }
  // A complete response replaces the partial one (§3.4: the newest wins).
  if (variant) partials_.remove(r.route.cache_key);
  prepare_client_head(msg, r.client.keep_alive, r.client.request().version(), r.head_method,
                      r.settings.via_for(msg.version()), to_string(result));
  if (const auto hidden = hidden_tag_field(r); !hidden.empty()) msg.erase(hidden);
  r.client.keep_alive = msg.keep_alive();
  r.record.result = result;
  // A body larger than the memory tier takes goes to disk as it streams;
  // none is ever copied whole past the memory tier's room.
  std::unique_ptr<DiskFillSink> disk_fill;
  const auto declared = declared_length(facts.fields);
  if (variant && fills_to_disk(declared, store_.has_disk_tier(), store_.memory_room())) {
    const std::uint64_t length = *declared;
    auto [head, meta] =
        stored_head_and_meta(facts, length, r.settings.via, heuristic_policy(r.settings.config),
                             r.settings.config.cache.tag_header);
    // Named, not a temporary: GCC 12 mishandles a temporary passed by value
    // to a coroutine inside co_await.
    StoredObject head_only{r.route.cache_key, *variant, r.hash, std::move(meta),
                           std::move(head),   nullptr,  length};
    disk_fill =
        co_await DiskFillSink::begin(store_, std::move(head_only), limits.upstream_io_timeout_ms);
    variant.reset();
  }
  BodyCapture capture{variant.has_value() || partial.has_value(),
                      partial ? partial->range.length() : store_.memory_room(),
                      {},
                      {},
                      {}};
  if (disk_fill) {
    capture.stream = [&disk_fill](std::string_view piece, bool done) {
      return disk_fill->take(piece, done);
    };
  }
  capture.on_complete = [&](std::string& body) {
    if (partial) {
      keep_partial(r, facts, std::move(*partial), std::move(body));
      return;
    }
    store_fill(r.worker, store_, r.settings, {r.route.cache_key, r.hash, std::move(*variant)},
               facts, std::move(body));
  };
  if (co_await relay_response(r.worker, r.client, *res, limits, capture, r.route.cache_key)) {
    r.client.keep_alive = false;
    co_return static_cast<unsigned>(facts.status);
  }
  co_await finish_upstream(r.worker, limits, std::move(res));
  co_return static_cast<unsigned>(facts.status);
}

void CacheService::invalidate_after_unsafe(std::string_view method, const Route& route,
                                           const ForwardResult& result) {
  HeaderList response;
  if (!result.location.empty()) response.push_back({"Location", result.location});
  if (!result.content_location.empty()) {
    response.push_back({"Content-Location", result.content_location});
  }
  for (const auto& key :
       invalidation_keys(method, static_cast<int>(result.status), route.uri, response)) {
    purge(key);
  }
}

CacheService::Purged CacheService::purge(std::string_view key) {
  Purged out;
  // The tombstone first: from then on a miss on the key skips the peers.
  if (peers_ != nullptr) out.sequence = peers_->invalidate(key);
  out.removed = store_.remove(key);
  partials_.remove(std::string(key));
  return out;
}

CacheService::Purged CacheService::purge_tag(std::string_view tag) {
  Purged out;
  if (peers_ != nullptr) out.sequence = peers_->invalidate(protocol::InvalidationKind::tag, tag);
  out.removed = store_.remove_tag(tag);
  // Partial entries keep no tag index: a tag purge drops them all.
  partials_.remove_prefix("");
  return out;
}

CacheService::Purged CacheService::purge_prefix(std::string_view prefix) {
  Purged out;
  if (peers_ != nullptr) {
    out.sequence = peers_->invalidate(protocol::InvalidationKind::prefix, prefix);
  }
  out.removed = store_.remove_prefix(prefix);
  partials_.remove_prefix(prefix);
  return out;
}

awaitable<PurgeReach> CacheService::await_reach(std::uint64_t sequence,
                                                asio::any_io_executor executor) {
  if (peers_ == nullptr) co_return PurgeReach{};
  co_return co_await peers_->await_reach(sequence, std::move(executor));
}

}  // namespace sumcache::daemon
