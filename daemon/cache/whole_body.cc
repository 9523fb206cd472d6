#include "daemon/cache/whole_body.h"

#include <vector>

namespace sumcache::daemon {
namespace {

constexpr std::size_t kBodyRead = 64 * 1024;

// Not a coroutine: a lambda held in the frame of a coroutine with external
// linkage trips GCC 12's -Wsubobject-linkage.
auto read_more(UpstreamResponse& res) {
  return res.connection->visit([&](auto& stream) {
    return beast::http::async_read(stream, res.buffer, *res.parser, use_nothrow);
  });
}

}  // namespace

awaitable<error_code> read_whole_body(UpstreamResponse& res, const config::LimitsConfig& limits,
                                      std::uint64_t limit, std::string& out) {
  auto& parser = *res.parser;
  if (parser.content_length() && *parser.content_length() > limit) {
    co_return error_code(beast::http::error::body_limit);
  }
  std::vector<char> chunk(kBodyRead);
  // Beast reads at most the buffer's free capacity (512 bytes after a small
  // head): with room for a whole chunk, the body comes in reads of up to 64 KiB.
  if (!parser.is_done()) res.buffer.reserve(kBodyRead);
  while (!parser.is_done()) {
    parser.get().body().data = chunk.data();
    parser.get().body().size = chunk.size();
    res.connection->expires_after(limits.upstream_io_timeout_ms);
    auto [ec, n] = co_await read_more(res);
    if (ec && ec != beast::http::error::need_buffer) co_return upstream_read_error(ec);
    const std::size_t got = chunk.size() - parser.get().body().size;
    if (out.size() + got > limit) co_return error_code(beast::http::error::body_limit);
    out.append(chunk.data(), got);
  }
  co_return error_code{};
}

}  // namespace sumcache::daemon
