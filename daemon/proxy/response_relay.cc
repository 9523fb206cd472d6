#include "daemon/proxy/response_relay.h"

#include "daemon/proxy/head_writer.h"

namespace sumcache::daemon {
namespace {

constexpr std::size_t kRelayChunk = 64 * 1024;

template <class Stream>
awaitable<error_code> relay_body(Stream& up, ClientConnection& client, UpstreamResponse& upstream,
                                 const config::LimitsConfig& limits, BodyCapture& capture) {
  auto& parser = *upstream.parser;
  auto& msg = parser.get();
  http::response_serializer<http::buffer_body> sr{msg};
  std::vector<char> chunk(kRelayChunk);
  msg.body().data = nullptr;
  msg.body().more = !parser.is_done();
  if (parser.is_done() && capture.active && capture.on_complete) capture.on_complete(capture.data);
  client.stream.expires_after(limits.upstream_io_timeout_ms);
  auto [hec, hn] = co_await http::async_write_header(client.stream, sr, use_nothrow);
  if (hec) co_return hec;
  client.bytes_out += hn;
  while (!sr.is_done()) {
    if (!parser.is_done()) {
      msg.body().data = chunk.data();
      msg.body().size = chunk.size();
      upstream.connection->expires_after(limits.upstream_io_timeout_ms);
      auto [ec, n] = co_await http::async_read(up, upstream.buffer, parser, use_nothrow);
      if (ec && ec != http::error::need_buffer) co_return ec;
      const std::size_t got = chunk.size() - msg.body().size;
      if (capture.active) {
        if (capture.data.size() + got > capture.limit) {
          capture.active = false;
          std::string().swap(capture.data);
        } else {
          capture.data.append(chunk.data(), got);
        }
      }
      if (parser.is_done() && capture.active && capture.on_complete) {
        capture.on_complete(capture.data);
      }
      msg.body().data = chunk.data();
      msg.body().size = got;
      msg.body().more = !parser.is_done();
    } else {
      msg.body().data = nullptr;
      msg.body().size = 0;
      msg.body().more = false;
    }
    client.stream.expires_after(limits.upstream_io_timeout_ms);
    auto [ec, n] = co_await http::async_write(client.stream, sr, use_nothrow);
    client.bytes_out += n;
    if (ec && ec != http::error::need_buffer) co_return ec;
  }
  co_return error_code{};
}

}  // namespace

void prepare_client_head(http::response<http::buffer_body>& msg, const ClientConnection& client,
                         unsigned client_version, bool head_method, std::string_view via,
                         std::string_view x_cache) {
  const bool chunked = msg.chunked();
  const bool has_length = msg.has_content_length();
  strip_hop_by_hop(msg.base());
  append_via(msg.base(), via);
  msg.set("X-Cache", x_cache);
  msg.version(client_version == 10 ? 10 : 11);
  // A body without a length is chunked for HTTP/1.1 clients; HTTP/1.0 ones
  // read it until the connection closes (RFC 9112 §6.3).
  const bool body_expected =
      !head_method && msg.result_int() != 204 && msg.result_int() != 304;
  if ((chunked || !has_length) && body_expected && client_version != 10) msg.chunked(true);
  const bool delimited_by_close = body_expected && !has_length && client_version == 10;
  msg.keep_alive(client.keep_alive && !delimited_by_close);
}

awaitable<error_code> relay_response(ClientConnection& client, UpstreamResponse& upstream,
                                     const config::LimitsConfig& limits, BodyCapture& capture,
                                     bool& complete) {
  complete = false;
  const error_code ec = co_await upstream.connection->visit([&](auto& stream) {
    return relay_body(stream, client, upstream, limits, capture);
  });
  if (!ec) complete = upstream.parser->is_done();
  co_return ec;
}

}  // namespace sumcache::daemon
