#include "daemon/session/http2_session.h"

#include <algorithm>
#include <vector>

#include "daemon/exchange/forward_flow.h"
#include "daemon/session/connection_close.h"
#include "daemon/session/http2_exchange.h"
#include "daemon/session/request_answer.h"

namespace sumcache::daemon {

using namespace asio::experimental::awaitable_operators;

namespace {

constexpr std::size_t kReadChunk = 16 * 1024;
// What one socket write carries at most: frames nghttp2 has ready are
// gathered up to this before the write.
constexpr std::size_t kWriteBatch = 64 * 1024;
constexpr auto kForever = std::chrono::hours(24 * 365);

}  // namespace

Http2Session::Http2Session(WorkerContext& worker, CacheService* cache, ClientConnection& client)
    : worker_(worker),
      cache_(cache),
      client_(client),
      settings_(worker.shared.settings.get()),
      frames_(settings_->config.limits, worker.stats.http2, client.stream.get_executor(),
              client.address, client.address_text,
              {.start_stream =
                   [this](std::shared_ptr<Http2Exchange> stream) {
                     // Counted now: the session must outlive the handler from here on.
                     ++handlers_;
                     if (client_.is_linked()) client_.unlink();
                     asio::post(executor(), [this, stream = std::move(stream)]() mutable {
                       asio::co_spawn(executor(), serve_stream(std::move(stream)), asio::detached);
                     });
                   },
               .output_ready = [this] { writer_signal_.cancel(); },
               .state_changed =
                   [this] {
                     last_activity_ = std::chrono::steady_clock::now();
                     watchdog_signal_.cancel();
                   }}),
      last_activity_(std::chrono::steady_clock::now()),
      writer_signal_(client.stream.get_executor()),
      watchdog_signal_(client.stream.get_executor()),
      handlers_done_(client.stream.get_executor()) {
  worker_.stats.http2.connections.fetch_add(1, std::memory_order_relaxed);
}

awaitable<void> Http2Session::serve_stream(std::shared_ptr<Http2Exchange> stream) {
  worker_.stats.requests.fetch_add(1, std::memory_order_relaxed);
  worker_.stats.http2.streams.fetch_add(1, std::memory_order_relaxed);
  const auto settings = worker_.shared.settings.get();
  stream->write_timeout = settings->config.limits.upstream_io_timeout_ms;
  AccessRecord record;
  record.start = std::chrono::system_clock::now();
  const auto started = std::chrono::steady_clock::now();
  unsigned status = 0;
  const bool absolute_form = settings->config.mode == config::Mode::forward;
  if (const auto malformed = stream->finish_head(absolute_form)) {
    fill_record(record, *stream);
    record.result = CacheResult::error;
    status = co_await send_error(*stream, *settings, beast::http::status::bad_request,
                                 "malformed request: " + *malformed, 20);
  } else {
    status = co_await answer_request(worker_, cache_, *settings, *stream, record, false);
  }
  stream->finish();
  log_exchange(worker_, record, status, *stream, started);
  frames_.flush();
  if (--handlers_ == 0) {
    last_activity_ = std::chrono::steady_clock::now();
    handlers_done_.cancel();
    watchdog_signal_.cancel();
  }
}

awaitable<void> Http2Session::read_loop() {
  std::vector<std::uint8_t> chunk(kReadChunk);
  // What the h2c sniff or a read before it left in the buffer.
  if (client_.buffer.size() > 0) {
    const auto pending = client_.buffer.data();
    const bool ok =
        frames_.receive(static_cast<const std::uint8_t*>(pending.data()), pending.size());
    client_.buffer.consume(client_.buffer.size());
    if (!ok) reading_ = false;
    frames_.flush();
  }
  while (reading_ && !done_ && !frames_.over()) {
    client_.stream.expires_never();
    auto [ec, n] = co_await client_.stream.async_read_some(asio::buffer(chunk), use_nothrow);
    if (ec || n == 0) break;
    last_activity_ = std::chrono::steady_clock::now();
    if (!frames_.receive(chunk.data(), n)) break;
    frames_.flush();
  }
  reading_ = false;
  frames_.flush();
  watchdog_signal_.cancel();
}

awaitable<void> Http2Session::write_loop() {
  for (;;) {
    out_.clear();
    frames_.take_output(out_, kWriteBatch);
    if (!out_.empty()) {
      client_.stream.expires_after(settings_->config.limits.upstream_io_timeout_ms);
      auto [ec, n] = co_await asio::async_write(client_.stream, asio::buffer(out_), use_nothrow);
      if (ec) break;
      continue;
    }
    // After GOAWAY nothing more goes out; handlers still running find their
    // streams closed below. A client that stopped sending still gets the
    // responses its handlers are writing.
    if (frames_.over()) break;
    if (!reading_ && handlers_ == 0) break;
    writer_signal_.expires_after(kForever);
    co_await writer_signal_.async_wait(use_nothrow);
  }
  done_ = true;
  // Ends the read and every stream still waiting on the client.
  client_.stream.cancel();
  frames_.close_all();
  watchdog_signal_.cancel();
}

awaitable<void> Http2Session::watchdog() {
  while (!done_) {
    const auto& limits = settings_->config.limits;
    const auto now = std::chrono::steady_clock::now();
    auto next = now + kForever;
    if (frames_.header_block_open()) {
      const auto due = frames_.header_block_since() + limits.client_request_timeout_ms;
      if (now >= due) {
        frames_.go_away(Http2Goaway::header_timeout, NGHTTP2_PROTOCOL_ERROR);
        break;
      }
      next = std::min(next, due);
    }
    const bool idle = !frames_.has_streams() && handlers_ == 0;
    // Idle, the connection is in the worker's idle set, so a drain closes it.
    if (idle && !client_.is_linked()) worker_.idle.push_back(client_);
    if (!idle && client_.is_linked()) client_.unlink();
    if (idle) {
      const auto due = last_activity_ + limits.client_idle_timeout_ms;
      if (now >= due || worker_.shared.draining.load(std::memory_order_relaxed)) {
        frames_.go_away(Http2Goaway::idle, NGHTTP2_NO_ERROR);
        break;
      }
      next = std::min(next, due);
    }
    watchdog_signal_.expires_at(next);
    co_await watchdog_signal_.async_wait(use_nothrow);
  }
  if (client_.is_linked()) client_.unlink();
}

awaitable<void> Http2Session::run() {
  co_await (read_loop() && write_loop() && watchdog());
  while (handlers_ > 0) {
    handlers_done_.expires_after(kForever);
    co_await handlers_done_.async_wait(use_nothrow);
  }
}

awaitable<void> serve_http2(WorkerContext& worker, CacheService* cache, ClientConnection& client) {
  Http2Session session(worker, cache, client);
  co_await session.run();
  // A client may still be sending frames when GOAWAY goes: they are read
  // and dropped for a while, so that the GOAWAY reaches it rather than a RST.
  co_await close_lingering(client);
}

}  // namespace sumcache::daemon
