// CacheService::complete_partial: a request for more than a stored partial
// response holds (RFC 9111 §3.4). Upstream gets a range request for only the
// missing part, with If-Range on the entry's strong validator (RFC 9110
// §13.1.5), so that a changed representation comes back as a full 200, which
// is relayed and stored in place of the partial entry. A 206 is read whole
// (at most its Content-Range's length), combined, and the client answered
// from the combination: a 200 when it asked for everything, else a 206.

#include "daemon/cache/cache_request.h"
#include "daemon/cache/cache_service.h"
#include "daemon/cache/hit_writer.h"
#include "daemon/cache/partial_head.h"
#include "daemon/cache/stored_head.h"
#include "daemon/cache/whole_body.h"
#include "daemon/exchange/header_convert.h"
#include "daemon/http/targeted_cache_control.h"
#include "daemon/http/vary.h"

namespace sumcache::daemon {
namespace {

std::string range_value(ByteRange missing, std::uint64_t complete) {
  // "bytes=5-" for a missing tail, as a client would ask for the rest.
  return "bytes=" + std::to_string(missing.first) + "-" +
         (missing.last + 1 == complete ? std::string() : std::to_string(missing.last));
}

}  // namespace

awaitable<std::optional<unsigned>> CacheService::complete_partial(CacheRequest& r) {
  if (r.from_peer || r.directives.only_if_cached || !(r.fills_cache() || r.keeps_partial())) {
    co_return std::nullopt;
  }
  const PartialPtr entry = partials_.find(r.route.cache_key);
  if (!entry || !vary_matches(entry->meta.vary, entry->variant, r.headers)) co_return std::nullopt;
  // §3.4: without a strong validator stored ranges cannot be combined with
  // anything: the request goes upstream as the client sent it.
  const auto validator = strong_validator(entry->facts.fields);
  if (!validator) co_return std::nullopt;
  ByteRange wanted{0, entry->complete - 1};
  bool whole = true;
  if (r.ranged) {
    const RangeDecision asked =
        decide_range("GET", r.headers, entry->facts.fields, entry->complete, r.now);
    if (asked.outcome == RangeOutcome::not_satisfiable) co_return std::nullopt;
    if (asked.outcome == RangeOutcome::partial) {
      wanted = asked.range;
      whole = false;
    }
  }
  const auto missing = missing_span(entry->pieces, wanted);
  if (!missing) co_return std::nullopt;  // held but not fresh: asked for as it came

  const auto& limits = r.settings.config.limits;
  UpstreamRequest up{
      r.route.upstream,
      r.worker.tls_server_name,
      make_upstream_head(r.client.request(), r.client.body_chunked(), r.route, r.settings, r.client.address_text()),
      false,
      {}};
  up.head.set(beast::http::field::range, range_value(*missing, entry->complete));
  up.head.set(beast::http::field::if_range, *validator);
  auto [ec, res] = co_await exchange_with_upstream(r.worker, limits, up, &r.client);
  if (ec) {
    count_upstream_failure(r.worker, ec);
    r.record.result = CacheResult::miss;
    co_return co_await send_upstream_error(r.worker.shared, r.client, r.settings, r.route, ec,
                                           r.client.request().version());
  }
  auto& msg = res->parser->get();
  // A 200 (If-Range failed: the representation changed) is the answer: relayed,
  // and stored in place of the partial entry (relay_and_store).
  if (msg.result_int() == 200) {
    co_return co_await relay_and_store(r, std::move(res), CacheResult::miss);
  }
  // Anything else (a 416, an error) answers our range, not the client's
  // request, which then goes upstream as it came.
  if (msg.result_int() != 206) {
    co_await finish_upstream(r.worker, limits, std::move(res));
    co_return co_await fetch(r, nullptr, false);
  }
  ResponseFacts facts{206,
                      std::string(msg.reason()),
                      to_header_list(msg.base()),
                      {},
                      exchange_times(res->request_time, res->response_time)};
  facts.directives =
      effective_response_directives(facts.fields, r.settings.config.cache.targeted_fields);
  auto fill = partial_to_keep(r, facts);
  std::string body;
  const bool usable = fill && fill->range.complete == entry->complete &&
                      combinable(entry->facts.fields, facts.fields);
  if (usable) {
    if (const auto read_ec = co_await read_whole_body(*res, limits, fill->range.length(), body)) {
      count_upstream_failure(r.worker, read_ec);
      r.record.result = CacheResult::miss;
      co_return co_await send_upstream_error(r.worker.shared, r.client, r.settings, r.route,
                                             read_ec, r.client.request().version());
    }
  }
  co_await finish_upstream(r.worker, limits, std::move(res));
  PartialTable::Added added;
  if (usable) added = keep_partial(r, facts, std::move(*fill), std::move(body));
  const Piece* piece = added.entry ? covering_piece(added.entry->pieces, wanted) : nullptr;
  if (piece == nullptr) {
    // A 206 we cannot combine (another range, length or validator, or a bad
    // Content-Range): the client's own request goes upstream after all.
    co_return co_await fetch(r, nullptr, false);
  }
  const HitRequest hit{false,
                       r.client.request().version(),
                       false,
                       r.ranged,
                       &r.headers,
                       r.now,
                       limits.upstream_io_timeout_ms,
                       hidden_tag_field(r)};
  const std::string_view bytes =
      std::string_view(piece->bytes)
          .substr(static_cast<std::size_t>(wanted.first - piece->first),
                  static_cast<std::size_t>(wanted.last - wanted.first + 1));
  r.record.result = CacheResult::miss;
  r.record.hierarchy = {};
  if (!whole) {
    co_return co_await write_built_hit(r.client, hit, 206, partial_head(r, *added.entry, wanted),
                                       bytes, std::chrono::seconds{0},
                                       to_string(CacheResult::miss));
  }
  // RFC 9110 §15.3.7.3: the whole representation is a complete 200 with a
  // Content-Length; its head is the one the store keeps (stored_head_and_meta).
  ResponseFacts complete = added.entry->facts;
  complete.status = 200;
  complete.reason = "OK";
  std::string head =
      stored_head_and_meta(complete, bytes.size(), r.settings.via,
                           heuristic_policy(r.settings.config), r.settings.config.cache.tag_header)
          .first;
  head.resize(head.size() - trailing_field_bytes(head, hit.hidden_field));
  co_return co_await write_built_hit(r.client, hit, 200, std::move(head), bytes,
                                     std::chrono::seconds{0}, to_string(CacheResult::miss));
}

}  // namespace sumcache::daemon
