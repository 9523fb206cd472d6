// Stored partial responses (RFC 9111 §3.3, §3.4): 206s kept in the
// PartialTable, answered from it, combined, and completed into the store.

#include "daemon/cache/cache_request.h"
#include "daemon/cache/cache_service.h"
#include "daemon/cache/hit_writer.h"
#include "daemon/cache/partial_head.h"
#include "daemon/cache/store_on_fill.h"
#include "daemon/cache/stored_head.h"
#include "daemon/http/cacheability.h"
#include "daemon/http/hop_by_hop.h"
#include "daemon/http/unproven_use.h"
#include "daemon/http/vary.h"
#include "daemon/log/log_limiter.h"
#include "daemon/peer/peer_service.h"

namespace sumcache::daemon {

// A 206 an origin got wrong (RFC 9110 §14.4, §15.3.7): relayed as it came,
// never stored; counted and logged once a second at most with the number
// held back.
void CacheService::note_invalid_partial(WorkerContext& worker, const std::string& key,
                                        std::string_view why) {
  partial_invalid_.fetch_add(1, std::memory_order_relaxed);
  const auto held_back = partial_log_.admit(LogLimiter::Clock::now());
  if (!held_back) return;
  worker.shared.log.warn(
      "206 not stored for " + key.substr(0, 256) + ": " + std::string(why) +
      (*held_back > 0 ? " (" + std::to_string(*held_back) + " more since the last)" : ""));
}

std::string partial_head(const CacheRequest& r, const PartialEntry& entry, ByteRange range) {
  HeaderList fields =
      headers_to_store(entry.facts.fields, entry.facts.directives, entry.facts.times.response_time);
  for (const char* name : {"Age", "X-Cache", "Content-Length", "Content-Range"}) {
    remove_field(fields, name);
  }
  if (const auto hidden = hidden_tag_field(r); !hidden.empty()) remove_field(fields, hidden);
  append_via(fields, r.settings.via);
  fields.push_back({"Content-Range", "bytes " + std::to_string(range.first) + "-" +
                                         std::to_string(range.last) + "/" +
                                         std::to_string(entry.complete)});
  fields.push_back({"Content-Length", std::to_string(range.last - range.first + 1)});
  return build_head("HTTP/1.1 206 Partial Content", fields);
}

awaitable<std::optional<unsigned>> CacheService::serve_partial(CacheRequest& r) {
  // A peer never gets a partial response: only complete ones are in the
  // summaries (docs/peers.md).
  if (!r.keeps_partial() || r.from_peer) co_return std::nullopt;
  const PartialPtr entry = partials_.find(r.route.cache_key);
  if (!entry || !vary_matches(entry->meta.vary, entry->variant, r.headers)) co_return std::nullopt;
  const UseResult use =
      decide_use(entry->meta.freshness, entry->meta.directives, r.directives, r.now);
  if (use.decision != UseDecision::serve_fresh) co_return std::nullopt;
  if (peers_ != nullptr &&
      is_unproven(entry->meta.freshness.response_time, peers_->unproven_before_ms())) {
    co_return std::nullopt;
  }
  // bytes=-N and bytes=N- resolve against the complete length (RFC 9110
  // §14.1.2); If-Range is checked against the stored fields (§13.1.5).
  const RangeDecision range =
      decide_range("GET", r.headers, entry->facts.fields, entry->complete, r.now);
  if (range.outcome != RangeOutcome::partial) co_return std::nullopt;
  const Piece* piece = covering_piece(entry->pieces, range.range);
  if (piece == nullptr) co_return std::nullopt;
  const HitRequest hit{false,
                       r.client.request().version(),
                       false,
                       true,
                       &r.headers,
                       r.now,
                       r.settings.config.limits.upstream_io_timeout_ms,
                       hidden_tag_field(r)};
  const std::string_view body =
      std::string_view(piece->bytes)
          .substr(static_cast<std::size_t>(range.range.first - piece->first),
                  static_cast<std::size_t>(range.range.last - range.range.first + 1));
  r.record.result = CacheResult::hit;
  r.record.hierarchy = {};
  co_return co_await write_built_hit(r.client, hit, 206, partial_head(r, *entry, range.range), body,
                                     use.age, to_string(CacheResult::hit));
}

std::optional<PartialFill> CacheService::partial_to_keep(const CacheRequest& r,
                                                         const ResponseFacts& facts) {
  auto variant = fill_variant(r.headers, r.directives, facts, policy_.max_object_bytes, true);
  if (!variant) return std::nullopt;
  const PartialFacts checked = check_partial_response(facts.fields, policy_.max_object_bytes);
  if (checked.check != PartialCheck::storable) {
    if (is_protocol_error(checked.check)) {
      note_invalid_partial(r.worker, r.route.cache_key, to_string(checked.check));
    }
    return std::nullopt;
  }
  // Larger than the table holds: not copied at all.
  if (checked.range.length() > partials_.limits().max_bytes) return std::nullopt;
  return PartialFill{std::move(*variant), checked.range};
}

PartialTable::Added CacheService::keep_partial(CacheRequest& r, const ResponseFacts& facts,
                                               PartialFill fill, std::string body) {
  if (body.size() != fill.range.length()) {
    note_invalid_partial(r.worker, r.route.cache_key,
                         "body of " + std::to_string(body.size()) + " bytes for Content-Range of " +
                             std::to_string(fill.range.length()));
    return {};
  }
  PartialEntry incoming{r.route.cache_key,
                        std::move(fill.variant),
                        facts,
                        meta_of(facts, heuristic_policy(r.settings.config)),
                        0,
                        {}};
  auto added = partials_.add(std::move(incoming), fill.range, std::move(body));
  if (!added.complete) return added;
  // RFC 9110 §15.3.7.3: ranges that cover the whole representation are
  // processed "as if it were a complete 200 (OK) response".
  ResponseFacts whole = added.entry->facts;
  whole.status = 200;
  whole.reason = "OK";
  store_fill(r.worker, store_, r.settings, {r.route.cache_key, r.hash, added.entry->variant}, whole,
             added.entry->pieces.front().bytes);
  return added;
}

}  // namespace sumcache::daemon
