#include "daemon/exchange/upstream_exchange.h"

#include "daemon/exchange/head_writer.h"
#include "daemon/exchange/header_convert.h"
#include "daemon/http/message_framing.h"
#include "daemon/http/upstream_replay.h"

namespace sumcache::daemon {
namespace {

constexpr std::size_t kBodyChunk = 64 * 1024;
// A response body drained only to keep a connection is abandoned past this.
constexpr std::uint64_t kMaxDrainBytes = 1024 * 1024;

// The request body as sent so far, kept while it fits kReplayBodyLimit, so that
// an idempotent request can be sent again on a fresh connection.
struct HeldBody {
  std::string bytes;
  bool whole = true;  // every byte taken from the client is in `bytes`

  void add(const char* data, std::size_t n) {
    if (!whole) return;
    if (bytes.size() + n > kReplayBodyLimit) {
      whole = false;
      std::string().swap(bytes);
      return;
    }
    bytes.append(data, n);
  }
};

bool expects_continue(const beast::http::request_header<>& head) {
  return beast::iequals(head[beast::http::field::expect], "100-continue");
}

// RFC 9112 §6.3 item 5: a response whose framing is bad or ambiguous is an
// error: the caller answers 502 and drops the connection (where its next
// message starts is unknown), so the response is neither relayed nor stored.
// Only HEAD changes what a request here expects (CONNECT goes via tunnel.cc).
error_code check_response_framing(beast::http::response_header<>& head, bool head_method) {
  const auto framing = response_framing(head.version(), head.result_int(),
                                        head_method ? "HEAD" : "GET", framing_fields(head));
  if (const auto* refusal = std::get_if<FramingRefusal>(&framing)) {
    return std::error_code(make_error_code(refusal->reason));
  }
  // Equal Content-Length values count as one (RFC 9112 §6.3 item 5); the client gets one.
  const auto& body = std::get<BodyFraming>(framing);
  if (body.kind == BodyFraming::Kind::length &&
      head.count(beast::http::field::content_length) > 0) {
    const std::string length = std::to_string(body.length);
    if (head.count(beast::http::field::content_length) > 1 ||
        head[beast::http::field::content_length] != length) {
      head.set(beast::http::field::content_length, length);
    }
  }
  return {};
}

// Reads response heads until a final one, relaying 1xx interim responses
// (RFC 9110 §15.2) to the client, at most kMaxInterimResponses of them, each
// without its hop-by-hop fields (§7.6.1). With `until_continue`, a 100 also
// ends the wait: the request body goes next.
template <class Stream>
awaitable<error_code> read_final_head(Stream& up, UpstreamResponse& res,
                                      const config::LimitsConfig& limits, ClientExchange* client,
                                      bool head_method, bool until_continue = false) {
  for (int interim_count = 0;; ++interim_count) {
    res.connection->expires_after(limits.upstream_first_byte_timeout_ms);
    auto [ec, n] =
        co_await beast::http::async_read_header(up, res.buffer, *res.parser, use_nothrow);
    if (ec) co_return upstream_read_error(ec);
    const unsigned status = res.parser->get().result_int();
    if (status >= 200) co_return check_response_framing(res.parser->get().base(), head_method);
    if (status == 101) co_return error_code(beast::http::error::bad_version);  // no Upgrade relay
    if (interim_count == kMaxInterimResponses) {
      co_return make_error_code(FramingErrc::too_many_interim);
    }
    if (client != nullptr) {
      strip_hop_by_hop(res.parser->get().base());
      const std::string interim = serialize_head(res.parser->get().base()) + "\r\n";
      auto [wec, wn] = co_await client->write_interim(interim);
      if (wec) co_return wec;
    }
    res.parser.emplace();
    res.parser->body_limit(boost::none);
    if (head_method) res.parser->skip(true);
    if (until_continue && status == 100) co_return error_code{};
  }
}

// Who gets the interim responses: not an HTTP/1.0 client (RFC 9110 §15.2: a
// server MUST NOT send it a 1xx), which would take one for the final answer.
ClientExchange* interim_receiver(ClientExchange* client) {
  if (client == nullptr || client->request().version() < 11) return nullptr;
  return client;
}

// Streams the client's request body upstream through the serializer, keeping
// a copy in `held`. On a retry the bytes held from the first attempt go first.
template <class Stream>
awaitable<error_code> send_body(Stream& up, UpstreamResponse& res,
                                beast::http::request<beast::http::buffer_body>& msg,
                                beast::http::request_serializer<beast::http::buffer_body>& sr,
                                const config::LimitsConfig& limits, ClientExchange& client,
                                error_code& client_error, HeldBody& held) {
  std::vector<char> chunk(kBodyChunk);
  bool replay = !held.bytes.empty();
  while (!sr.is_done()) {
    if (replay) {
      replay = false;
      msg.body().data = held.bytes.data();
      msg.body().size = held.bytes.size();
      msg.body().more = !client.body_done();
    } else if (!client.body_done()) {
      auto [ec, n] =
          co_await client.read_body(asio::buffer(chunk), limits.client_request_timeout_ms);
      if (ec) {
        client_error = ec;
        co_return ec;
      }
      msg.body().data = chunk.data();
      msg.body().size = n;
      msg.body().more = !client.body_done();
      held.add(chunk.data(), n);
    } else {
      msg.body().data = nullptr;
      msg.body().size = 0;
      msg.body().more = false;
    }
    res.connection->expires_after(limits.upstream_io_timeout_ms);
    auto [ec, n] = co_await beast::http::async_write(up, sr, use_nothrow);
    if (ec && ec != beast::http::error::need_buffer) co_return ec;
  }
  co_return error_code{};
}

template <class Stream>
awaitable<error_code> run_exchange(Stream& up, UpstreamResponse& res, UpstreamRequest& request,
                                   const config::LimitsConfig& limits, ClientExchange* client,
                                   bool with_body, HeldBody& held) {
  ClientExchange* interim_to = interim_receiver(client);
  beast::http::request<beast::http::buffer_body> msg{request.head};
  msg.body().data = nullptr;
  msg.body().more = with_body;
  beast::http::request_serializer<beast::http::buffer_body> sr{msg};
  res.connection->expires_after(limits.upstream_io_timeout_ms);
  if (!with_body) {
    auto [ec, n] = co_await beast::http::async_write(up, sr, use_nothrow);
    if (ec) co_return ec;
    co_return co_await read_final_head(up, res, limits, interim_to, request.head_method);
  }
  auto [hec, hn] = co_await beast::http::async_write_header(up, sr, use_nothrow);
  if (hec) co_return hec;
  if (expects_continue(request.head)) {
    // The origin answers the head first (RFC 9110 §10.1.1): a 100 is relayed and the
    // body follows; a final status means the body is never sent.
    if (auto ec =
            co_await read_final_head(up, res, limits, interim_to, request.head_method, true)) {
      co_return ec;
    }
    if (res.parser->is_header_done()) co_return error_code{};  // a final status: no body
  }
  if (auto ec =
          co_await send_body(up, res, msg, sr, limits, *client, request.client_error, held)) {
    co_return ec;
  }
  if (res.parser->is_header_done()) co_return error_code{};
  co_return co_await read_final_head(up, res, limits, interim_to, request.head_method);
}

}  // namespace

awaitable<std::tuple<error_code, std::unique_ptr<UpstreamResponse>>> exchange_with_upstream(
    WorkerContext& worker, const config::LimitsConfig& limits, UpstreamRequest& request,
    ClientExchange* client) {
  const bool with_body = client != nullptr && !client->body_done();
  const std::string_view method = request.head.method_string();
  std::optional<std::uint64_t> declared;
  if (with_body) declared = client->body_length();
  const auto max_idle = max_idle_for_reuse(
      may_replay(method, planned_body_hold(with_body, declared)), limits.upstream_unsafe_reuse_ms);
  HeldBody held;
  for (int attempt = 0;; ++attempt) {
    // A retry goes on a new connection: another pooled one may be just as stale.
    const auto idle_limit = attempt == 0 ? max_idle : std::chrono::milliseconds(0);
    auto [ec, connection, reused] =
        co_await worker.pool.acquire(request.origin, request.tls_server_name, idle_limit);
    if (ec) co_return std::tuple{ec, nullptr};
    auto res = std::make_unique<UpstreamResponse>();
    res->connection = std::move(connection);
    res->buffer.max_size(upstream_read_bound(limits.max_header_bytes));
    res->parser.emplace();
    res->parser->body_limit(boost::none);
    if (request.head_method) res->parser->skip(true);
    res->request_time = std::chrono::system_clock::now();
    const std::uint64_t client_bytes = client != nullptr ? client->bytes_out : 0;
    ec = co_await res->connection->visit([&](auto& stream) {
      return run_exchange(stream, *res, request, limits, client, with_body, held);
    });
    if (!ec) {
      res->response_time = std::chrono::system_clock::now();
      co_return std::tuple{error_code{}, std::move(res)};
    }
    const BodyHold hold =
        !with_body ? BodyHold::none : (held.whole ? BodyHold::whole : BodyHold::partial);
    const FailedAttempt failed{
        .reused = reused,
        .response_seen = res->parser->got_some() || res->buffer.size() > 0 ||
                         (client != nullptr && client->bytes_out != client_bytes),
        .replayable = may_replay(method, hold),
        .attempt = attempt};
    if (request.client_error || !retry_on_fresh_connection(failed)) {
      co_return std::tuple{ec, nullptr};
    }
    worker.pool.count_retry();
    worker.shared.log.debug("retrying " + std::string(method) + " to " + request.origin.pool_key() +
                            " on a new connection: " + ec.message());
  }
}

error_code upstream_read_error(error_code ec) {
  if (ec == beast::http::error::buffer_overflow) return make_error_code(FramingErrc::line_too_long);
  return ec;
}

awaitable<void> finish_upstream(WorkerContext& worker, const config::LimitsConfig& limits,
                                std::unique_ptr<UpstreamResponse> response) {
  auto& parser = *response->parser;
  std::vector<char> sink(kBodyChunk);
  std::uint64_t drained = 0;
  while (!parser.is_done() && drained < kMaxDrainBytes) {
    parser.get().body().data = sink.data();
    parser.get().body().size = sink.size();
    response->connection->expires_after(limits.upstream_io_timeout_ms);
    auto [ec, n] = co_await response->connection->visit([&](auto& stream) {
      return beast::http::async_read(stream, response->buffer, parser, use_nothrow);
    });
    if (ec && ec != beast::http::error::need_buffer) co_return;
    drained += sink.size() - parser.get().body().size;
  }
  if (parser.is_done() && parser.keep_alive()) {
    // Bytes past the end of the response (a body on a 204, 304 or HEAD answer,
    // a second response) would be read as the answer to the next request.
    if (response->buffer.size() > 0) {
      worker.pool.discard_stray(std::move(response->connection), response->buffer.size(),
                                "after a response");
      co_return;
    }
    ++response->connection->requests;
    worker.pool.release(std::move(response->connection));
  }
}

}  // namespace sumcache::daemon
