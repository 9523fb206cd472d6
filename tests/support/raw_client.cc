#include "tests/support/raw_client.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>

#include "tests/support/asio_support.h"
#include "tests/support/beast_convert.h"

namespace sumcache::testing {

namespace {

namespace beast = boost::beast;
namespace http = beast::http;

asio::awaitable<std::error_code> exchange(beast::tcp_stream& stream,
                                          const asio::ip::tcp::endpoint& endpoint,
                                          std::string_view bytes, RawReply& reply) {
  if (const auto [ec] = co_await stream.async_connect(endpoint, kUseTuple); ec) co_return ec;
  if (const auto [ec, n] = co_await asio::async_write(stream, asio::buffer(bytes), kUseTuple); ec) {
    co_return ec;
  }
  char chunk[16 * 1024];
  for (;;) {
    const auto [ec, n] = co_await stream.async_read_some(asio::buffer(chunk), kUseTuple);
    reply.data.append(chunk, n);
    // Anything but the deadline means the server is done with us: closed, reset or gone.
    if (ec) {
      reply.peer_closed = ec != beast::error::timeout;
      co_return std::error_code{};
    }
  }
}

}  // namespace

Result<RawReply> raw_exchange(const std::string& host, std::uint16_t port, std::string_view bytes,
                              std::chrono::milliseconds timeout) {
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) return std::error_code(ec);
  asio::io_context ioc;
  beast::tcp_stream stream(ioc);
  stream.expires_after(timeout);
  RawReply reply;
  const auto error =
      run_sync(ioc, exchange(stream, asio::ip::tcp::endpoint(address, port), bytes, reply));
  if (error) return error;
  return reply;
}

std::vector<ClientResponse> parse_responses(std::string_view data) {
  std::vector<ClientResponse> responses;
  while (!data.empty()) {
    http::response_parser<http::string_body> parser;
    parser.eager(true);
    boost::system::error_code ec;
    const std::size_t used = parser.put(asio::buffer(data.data(), data.size()), ec);
    // A body delimited by the end of the connection ends with the data.
    if (!ec && !parser.is_done() && used == data.size() && parser.need_eof()) parser.put_eof(ec);
    if (ec || !parser.is_done()) break;
    responses.push_back(to_client_response(parser.release()));
    data.remove_prefix(used);
  }
  return responses;
}

}  // namespace sumcache::testing
