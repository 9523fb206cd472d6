#include "daemon/exchange/forward_flow.h"

#include "daemon/exchange/destination_guard.h"
#include "daemon/exchange/error_response.h"
#include "daemon/exchange/head_writer.h"
#include "daemon/exchange/response_relay.h"
#include "protocol/peer_auth.h"

namespace sumcache::daemon {

beast::http::request_header<> make_upstream_head(const beast::http::request_header<>& client_head,
                                                 bool body_chunked, const Route& route,
                                                 const Settings& settings,
                                                 std::string_view client_address) {
  beast::http::request_header<> head = client_head;
  strip_hop_by_hop(head);
  // A credential for one hop (docs/protocol.md): never sent on, whoever sent it.
  head.erase(protocol::kPeerAuthHeader);
  head.erase(protocol::kOwnerFetchHeader);
  head.target(route.upstream_target);
  head.set(beast::http::field::host, route.host_header);
  // A client's X-Forwarded-Host never reaches an origin, which might pick a
  // site or write links by it while the key names another (docs/proxy.md,
  // "One authority per request"); in reverse mode it says the authority the
  // key was made from.
  head.erase("X-Forwarded-Host");
  append_via(head, settings.via_for(head.version()));
  head.version(11);
  if (settings.config.mode == config::Mode::reverse) {
    const auto prior = head["X-Forwarded-For"];
    head.set("X-Forwarded-For", prior.empty()
                                    ? std::string(client_address)
                                    : std::string(prior) + ", " + std::string(client_address));
    if (route.kind == RouteKind::fetch)
      head.set("X-Forwarded-Host", canonical_authority(route.uri));
  }
  // Transfer-Encoding is hop-by-hop, but the body still needs framing upstream.
  if (body_chunked) head.set(beast::http::field::transfer_encoding, "chunked");
  return head;
}

awaitable<unsigned> send_error(ClientExchange& client, const Settings& settings,
                               beast::http::status status, std::string_view reason,
                               unsigned version) {
  const auto res = make_error_response(status, reason, client.keep_alive, version, settings.via);
  co_await write_message(client, res);
  co_return static_cast<unsigned>(status);
}

void count_upstream_failure(WorkerContext& worker, error_code ec) {
  if (!is_destination_refusal(ec)) worker.stats.count_upstream_error(ec);
}

void log_upstream_failure(ProxyShared& shared, unsigned status, const Route& route, error_code ec) {
  LogLimiter& limiter = status == 504 ? shared.gateway_timeout_log : shared.bad_gateway_log;
  const auto held = limiter.admit(LogLimiter::Clock::now());
  if (!held) return;
  const std::string url =
      route.kind == RouteKind::tunnel ? "CONNECT " + route.upstream.pool_key() : route.cache_key;
  std::string line = std::to_string(status) + " for " + url + ": upstream " +
                     route.upstream.pool_key() + ": " + ec.message();
  if (*held > 0) {
    line +=
        " (" + std::to_string(*held) + " more " + std::to_string(status) + "s since the last line)";
  }
  shared.log.warn(line);
}

awaitable<unsigned> send_upstream_error(ProxyShared& shared, ClientExchange& client,
                                        const Settings& settings, const Route& route, error_code ec,
                                        unsigned version) {
  if (is_destination_refusal(ec)) {
    co_return co_await send_error(client, settings, beast::http::status::forbidden, ec.message(),
                                  version);
  }
  const bool timed_out = ec == beast::error::timeout || ec == asio::error::timed_out;
  const auto status =
      timed_out ? beast::http::status::gateway_timeout : beast::http::status::bad_gateway;
  const std::string reason = (timed_out ? "timed out waiting for " : "upstream failure from ") +
                             route.upstream.pool_key() + ": " + ec.message();
  log_upstream_failure(shared, static_cast<unsigned>(status), route, ec);
  co_return co_await send_error(client, settings, status, reason, version);
}

awaitable<ForwardResult> forward_request(
    WorkerContext& worker, const Settings& settings, ClientExchange& client, const Route& route,
    const std::function<void(const ForwardResult&)>& on_head, const CaptureHook& capture) {
  const auto& req = client.request();
  const auto& limits = settings.config.limits;
  UpstreamRequest upstream{
      route.upstream,
      worker.tls_server_name,
      make_upstream_head(req, client.body_chunked(), route, settings, client.address_text()),
      req.method() == beast::http::verb::head,
      {}};
  auto [ec, response] = co_await exchange_with_upstream(worker, limits, upstream, &client);
  if (upstream.client_error) {
    client.keep_alive = false;
    const bool timed_out = upstream.client_error == beast::error::timeout;
    ForwardResult failed;
    failed.status = co_await send_error(
        client, settings,
        timed_out ? beast::http::status::request_timeout : beast::http::status::bad_request,
        "request body: " + upstream.client_error.message(), req.version());
    co_return failed;
  }
  if (ec) {
    count_upstream_failure(worker, ec);
    client.keep_alive = client.keep_alive && client.body_done();
    ForwardResult failed;
    failed.status =
        co_await send_upstream_error(worker.shared, client, settings, route, ec, req.version());
    co_return failed;
  }
  // A final answer before the body was sent (after Expect) leaves it unread.
  if (!client.body_done()) client.keep_alive = false;
  BodyCapture copy = capture ? capture(*response) : BodyCapture{};
  auto& msg = response->parser->get();
  prepare_client_head(msg, client.keep_alive, req.version(), upstream.head_method,
                      settings.via_for(msg.version()), "MISS");
  // The cache's tags are not the client's business (docs/proxy.md), on any path.
  if (!settings.config.cache.tag_header_pass) msg.erase(settings.config.cache.tag_header);
  client.keep_alive = msg.keep_alive();
  ForwardResult result{msg.result_int(), std::string(msg[beast::http::field::location]),
                       std::string(msg[beast::http::field::content_location])};
  if (on_head) on_head(result);
  if (co_await relay_response(worker, client, *response, limits, copy, route.cache_key)) {
    client.keep_alive = false;
    co_return result;
  }
  co_await finish_upstream(worker, limits, std::move(response));
  co_return result;
}

}  // namespace sumcache::daemon
