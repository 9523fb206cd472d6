// Revalidation of stored responses (RFC 9111 §4.3): in line for a request
// that needs it, or in the background within stale-while-revalidate
// (RFC 5861 §3) so that the client is answered from the stale copy at once.
#include "daemon/cache/cache_fill.h"
#include "daemon/cache/cache_request.h"
#include "daemon/cache/cache_service.h"
#include "daemon/cache/cached_meta.h"
#include "daemon/cache/store_on_fill.h"
#include "daemon/cache/stored_head.h"
#include "daemon/cache/whole_body.h"
#include "daemon/exchange/header_convert.h"
#include "daemon/exchange/upstream_exchange.h"
#include "daemon/http/cacheability.h"
#include "daemon/http/message_framing.h"
#include "daemon/http/targeted_cache_control.h"
#include "daemon/http/validation.h"
#include "daemon/http/vary.h"
#include "daemon/log/log_limiter.h"

namespace sumcache::daemon {

namespace {

// The conditional request: the client's head, its own conditionals and range
// replaced by ours, so that a changed representation comes back whole.
beast::http::request_header<> conditional_head(beast::http::request_header<> head,
                                               const ObjectPtr& object) {
  for (auto name : {beast::http::field::if_none_match, beast::http::field::if_modified_since,
                    beast::http::field::if_range, beast::http::field::range}) {
    head.erase(name);
  }
  for (const auto& f : conditional_headers(parse_stored_head(object->head).fields)) {
    head.set(f.name, f.value);
  }
  return head;
}

// A body refused for a line that never ended is a degraded path even with no
// client to answer: counted and logged (once a second at most, with a count).
void note_unread_body(WorkerContext& worker, const std::string& url, error_code ec) {
  if (ec != FramingErrc::line_too_long) return;
  worker.stats.count_line_too_long(ec);
  ProxyShared& shared = worker.shared;
  const auto held_back = shared.truncated_log.admit(LogLimiter::Clock::now());
  if (!held_back) return;
  shared.log.warn(
      "background revalidation of " + url + ": " + ec.message() + "; not stored" +
      (*held_back > 0 ? " (" + std::to_string(*held_back) + " more since the last)" : ""));
}

}  // namespace

awaitable<unsigned> CacheService::revalidate(CacheRequest& r, const Candidate& c,
                                             bool stale_if_error) {
  const auto& limits = r.settings.config.limits;
  UpstreamRequest up{r.route.upstream, r.worker.tls_server_name,
                     conditional_head(make_upstream_head(r.client.request(), r.client.body_chunked(),
                                                         r.route, r.settings, r.client.address_text()),
                                      c.object),
                     r.head_method, {}};
  auto [ec, res] = co_await exchange_with_upstream(r.worker, limits, up, &r.client);
  if (ec) {
    count_upstream_failure(r.worker, ec);
    if (stale_if_error) {
      co_return co_await serve_stored(r, c, current_age(c.meta.freshness, r.now),
                                      CacheResult::stale_hit);
    }
    r.record.result = CacheResult::refresh_miss;
    co_return co_await send_upstream_error(r.worker.shared, r.client, r.settings, r.route, ec,
                                           r.client.request().version());
  }
  const unsigned status = res->parser->get().result_int();
  if (status == 304) {
    const auto times = exchange_times(res->request_time, res->response_time);
    const HeaderList fields = to_header_list(res->parser->get().base());
    co_await finish_upstream(r.worker, limits, std::move(res));
    auto refreshed = refreshed_head_and_meta(
        c.object->head, c.meta, fields, times, heuristic_policy(r.settings.config),
        r.settings.config.cache.targeted_fields, r.settings.config.cache.tag_header);
    if (!refreshed) co_return co_await fetch(r, nullptr, false);
    store_.update_meta(c.object->key, c.object->variant, refreshed->second, refreshed->first);
    auto object = std::make_shared<StoredObject>(*c.object);
    object->head = std::move(refreshed->first);
    object->meta = std::move(refreshed->second);
    Candidate fresh{object, *decode_meta(object->meta)};
    co_return co_await serve_stored(r, fresh, current_age(fresh.meta.freshness, r.now),
                                    CacheResult::refresh_hit);
  }
  if (stale_if_error && is_stale_if_error_status(status)) {
    co_await finish_upstream(r.worker, limits, std::move(res));
    co_return co_await serve_stored(r, c, current_age(c.meta.freshness, r.now),
                                    CacheResult::stale_hit);
  }
  co_return co_await relay_and_store(r, std::move(res), CacheResult::refresh_miss);
}

void CacheService::revalidate_in_background(CacheRequest& r, const Candidate& c) {
  auto ticket = inflight_.join(r.route.cache_key, r.worker.executor, std::chrono::milliseconds(0));
  if (!ticket.leader) return;  // someone is already fetching this key
  auto settings = r.worker.shared.settings.get();
  UpstreamRequest up{r.route.upstream, r.worker.tls_server_name,
                     conditional_head(make_upstream_head(r.client.request(), false, r.route,
                                                         *settings, r.client.address_text()),
                                      c.object),
                     false, {}};
  up.head.method(beast::http::verb::get);
  up.head.erase(beast::http::field::content_length);
  up.head.erase(beast::http::field::transfer_encoding);
  auto task = [](CacheService& self, WorkerContext& worker, std::shared_ptr<const Settings> s,
                 UpstreamRequest request, Candidate stale, HeaderList headers,
                 std::string key) -> awaitable<void> {
    InflightLease lease(self.inflight_, key);
    const auto& limits = s->config.limits;
    auto [ec, res] = co_await exchange_with_upstream(worker, limits, request, nullptr);
    if (ec) co_return;
    const auto times = exchange_times(res->request_time, res->response_time);
    auto& msg = res->parser->get();
    ResponseFacts facts{static_cast<int>(msg.result_int()), std::string(msg.reason()), to_header_list(msg.base()),
                        {}, times};
    facts.directives = effective_response_directives(facts.fields, s->config.cache.targeted_fields);
    if (facts.status == 304) {
      if (auto refreshed = refreshed_head_and_meta(
              stale.object->head, stale.meta, facts.fields, times, heuristic_policy(s->config),
              s->config.cache.targeted_fields, s->config.cache.tag_header)) {
        self.store_.update_meta(key, stale.object->variant, std::move(refreshed->second),
                                std::move(refreshed->first));
      }
      co_await finish_upstream(worker, limits, std::move(res));
      co_return;
    }
    auto variant = fill_variant(headers, RequestDirectives{}, facts, self.policy_.max_object_bytes);
    if (!variant) co_return;
    std::string body;
    // Read whole, so at most what the memory tier takes: a larger body is
    // stored by the next miss, streamed to disk (docs/store.md).
    if (const auto read_ec =
            co_await read_whole_body(*res, limits, self.store_.memory_room(), body)) {
      note_unread_body(worker, key, read_ec);
      co_return;
    }
    store_fill(worker, self.store_, *s, {key, stale.object->hash, std::move(*variant)}, facts,
               std::move(body));
    co_await finish_upstream(worker, limits, std::move(res));
  };
  asio::co_spawn(r.worker.executor,
                 task(*this, r.worker, settings, std::move(up), c, r.headers, r.route.cache_key),
                 asio::detached);
}

}  // namespace sumcache::daemon
