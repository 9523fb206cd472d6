#pragma once
// Feeding bytes to a Beast parser the way the daemon's reads do, without a
// socket: the head from everything received so far (async_read_header), then the
// body, a buffer_body through a fixed sink in pieces as the proxy relays it, or a
// string_body whole (async_read). `input` is what the peer sent; what the parser
// consumed is removed from it. When the parser wants bytes that are not there,
// the peer has closed: put_eof, as the read would see it.

#include <boost/beast/core/error.hpp>
#include <boost/beast/http.hpp>
#include <string_view>
#include <type_traits>

namespace sumcache::fuzz {

namespace http = boost::beast::http;
using boost::beast::error_code;

// What a read reports when the peer closes now (Beast's read operations call
// put_eof only after some bytes; before any, the error is end_of_stream).
template <class Parser>
error_code peer_closed(Parser& parser) {
  if (!parser.got_some()) return http::error::end_of_stream;
  error_code ec;
  parser.put_eof(ec);
  if (!ec && !parser.is_done()) ec = http::error::partial_message;
  return ec;
}

// Puts input until done(parser); the first error, or none when done.
template <class Parser, class Done>
error_code feed(Parser& parser, std::string_view& input, Done done, std::size_t* body_bytes) {
  constexpr bool kBufferBody =
      std::is_same_v<typename Parser::value_type::body_type, http::buffer_body>;
  char sink[4096];
  int stalls = 0;
  while (!done(parser)) {
    if constexpr (kBufferBody) {
      parser.get().body().data = sink;
      parser.get().body().size = sizeof sink;
    }
    error_code ec = http::error::need_more;
    const std::size_t n =
        input.empty() ? 0 : parser.put(boost::asio::const_buffer(input.data(), input.size()), ec);
    input.remove_prefix(n);
    if constexpr (kBufferBody) {
      if (body_bytes != nullptr) *body_bytes += sizeof sink - parser.get().body().size;
    }
    if (ec == http::error::need_buffer) continue;
    if (ec && ec != http::error::need_more) return ec;
    if (n > 0) {
      stalls = 0;
      continue;
    }
    if (!ec && ++stalls < 2) continue;  // a state change that took no bytes
    if (auto closed = peer_closed(parser)) return closed;
  }
  return {};
}

template <class Parser>
error_code read_head(Parser& parser, std::string_view& input) {
  return feed(
      parser, input, [](const Parser& p) { return p.is_header_done(); }, nullptr);
}

template <class Parser>
error_code read_body(Parser& parser, std::string_view& input, std::size_t& body_bytes) {
  return feed(
      parser, input, [](const Parser& p) { return p.is_done(); }, &body_bytes);
}

template <class Parser>
error_code read_message(Parser& parser, std::string_view& input) {
  return feed(
      parser, input, [](const Parser& p) { return p.is_done(); }, nullptr);
}

}  // namespace sumcache::fuzz
