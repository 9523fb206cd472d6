#include "daemon/peer/squid_digest_fetch.h"

#include <vector>

#include "daemon/net/connect_by_name.h"

namespace sumcache::daemon {

namespace {

namespace http = beast::http;

SquidDigestFetch failed(DigestFetchResult result, std::string why, SquidDigestFetch out = {}) {
  out.result = result;
  out.why = std::move(why);
  return out;
}

// Reads body bytes into body[have..] until it is full or the body ends.
awaitable<error_code> read_into(beast::tcp_stream& stream, beast::flat_buffer& buffer,
                                http::response_parser<http::buffer_body>& parser,
                                std::vector<std::uint8_t>& body, std::size_t& have) {
  while (have < body.size() && !parser.is_done()) {
    auto& b = parser.get().body();
    b.data = body.data() + have;
    b.size = body.size() - have;
    auto [ec, n] = co_await http::async_read(stream, buffer, parser, use_nothrow);
    have = body.size() - parser.get().body().size;
    if (ec == http::error::need_buffer) continue;
    if (ec) co_return ec;
  }
  co_return error_code{};
}

// A body that ended before its Content-Length (or chunked end) is a truncated
// digest, refused as one; other read errors are the network's.
SquidDigestFetch body_failed(error_code ec, SquidDigestFetch out) {
  if (ec == http::error::partial_message) {
    const std::string got = std::to_string(out.body_bytes);
    return failed(DigestFetchResult::refused,
                  std::error_code(protocol::SquidDigestErrc::truncated).message() +
                      " (the body ended after " + got + " bytes)",
                  std::move(out));
  }
  return failed(DigestFetchResult::error, "body: " + ec.message(), std::move(out));
}

awaitable<SquidDigestFetch> exchange(beast::tcp_stream& stream, const SquidDigestRequest& request) {
  SquidDigestFetch out;
  const std::string url = squid_digest_url(request.host, request.port);
  // Origin-form with Host, as Squid 5.7 sends it to a peer: a Squid serves an
  // origin-form /squid-internal-* request itself, whatever the Host, while an
  // absolute URI naming it by address is forwarded (to itself, or, once it has
  // siblings, to one of them and back: a forwarding loop).
  http::request<http::empty_body> req{http::verb::get, protocol::kSquidDigestPath, 11};
  req.set(http::field::host, url.substr(7, url.find('/', 7) - 7));
  req.insert(http::field::accept, protocol::kSquidDigestType);
  req.insert(http::field::accept, "text/html");
  req.set(http::field::user_agent, "sumcached");
  if (!request.if_modified_since.empty()) {
    req.set(http::field::if_modified_since, request.if_modified_since);
  }
  req.keep_alive(false);
  const auto sent_at = std::chrono::steady_clock::now();
  if (auto [ec, n] = co_await http::async_write(stream, req, use_nothrow); ec) {
    co_return failed(DigestFetchResult::error, "request: " + ec.message());
  }
  beast::flat_buffer buffer;
  http::response_parser<http::buffer_body> parser;
  const std::uint64_t limit = protocol::kSquidDigestHeaderBytes + request.max_mask_bytes;
  // One byte more than the largest digest: a longer body is seen as trailing bytes.
  parser.body_limit(limit + 1);
  if (auto [ec, n] = co_await http::async_read_header(stream, buffer, parser, use_nothrow); ec) {
    if (ec == http::error::body_limit) {
      co_return failed(DigestFetchResult::refused,
                       "Content-Length above the largest digest accepted (" +
                           std::to_string(limit) + " bytes, cluster.peer_max_filter_bits)");
    }
    co_return failed(DigestFetchResult::error, "answer: " + ec.message());
  }
  out.rtt = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() -
                                                                  sent_at);
  const auto& head = parser.get();
  out.status = head.result_int();
  out.last_modified = std::string(head[http::field::last_modified]);
  out.expires = std::string(head[http::field::expires]);
  out.date = std::string(head[http::field::date]);
  if (out.status == 304) {
    out.result = DigestFetchResult::not_modified;
    co_return out;
  }
  if (out.status != 200) {
    co_return failed(DigestFetchResult::error, "answered " + std::to_string(out.status),
                     std::move(out));
  }
  std::vector<std::uint8_t> body(protocol::kSquidDigestHeaderBytes);
  std::size_t have = 0;
  const error_code head_ec = co_await read_into(stream, buffer, parser, body, have);
  out.body_bytes = have;
  if (head_ec) co_return body_failed(head_ec, std::move(out));
  protocol::SquidDigestHeader header;
  if (auto ec = protocol::decode_squid_digest_header({body.data(), have}, request.max_mask_bytes,
                                                     header)) {
    co_return failed(DigestFetchResult::refused, ec.message(), std::move(out));
  }
  // The header passed: its mask is within the limit, and only now allocated.
  body.resize(protocol::kSquidDigestHeaderBytes + header.mask_size);
  const error_code mask_ec = co_await read_into(stream, buffer, parser, body, have);
  out.body_bytes = have;
  if (mask_ec) co_return body_failed(mask_ec, std::move(out));
  if (have == body.size() && !parser.is_done()) {
    // One byte further tells a longer body from one that ends here.
    std::vector<std::uint8_t> extra(1);
    std::size_t more = 0;
    const error_code extra_ec = co_await read_into(stream, buffer, parser, extra, more);
    if (extra_ec && extra_ec != http::error::partial_message) {
      co_return body_failed(extra_ec, std::move(out));
    }
    if (more != 0) body.push_back(extra[0]);
  }
  if (auto ec = protocol::SquidDigest::decode({body.data(), body.size()}, request.max_mask_bytes,
                                              out.digest)) {
    co_return failed(DigestFetchResult::refused, ec.message(), std::move(out));
  }
  out.result = DigestFetchResult::ok;
  co_return out;
}

}  // namespace

std::string squid_digest_url(const std::string& host, std::uint16_t port) {
  const bool v6 = host.find(':') != std::string::npos;
  return "http://" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port) +
         protocol::kSquidDigestPath;
}

awaitable<SquidDigestFetch> fetch_squid_digest(asio::any_io_executor executor,
                                               SquidDigestRequest request,
                                               std::chrono::milliseconds timeout) {
  beast::tcp_stream stream(executor);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  const ConnectOutcome connected =
      co_await connect_by_name(stream, request.host, request.port, deadline);
  if (connected.ec) {
    co_return failed(DigestFetchResult::error,
                     std::string(connected.step) + ": " + connected.ec.message());
  }
  SquidDigestFetch out = co_await exchange(stream, request);
  error_code ignored;
  stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
  co_return out;
}

}  // namespace sumcache::daemon
