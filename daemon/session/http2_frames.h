#pragma once
// The nghttp2 side of one HTTP/2 connection, without I/O: bytes in, frames
// out, the streams and their exchanges, and the limits of docs/http2.md
// (streams at once, a budget of RST_STREAM and of control frames a second,
// CONTINUATION frames per header block, decoded header bytes per stream, the
// HPACK table, body bytes per stream). Http2Session (http2_session.h) puts
// the socket and the timers around it; the fuzz target drives it alone.

#include <nghttp2/nghttp2.h>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "config/limits_config.h"
#include "daemon/http/h2_mapping.h"
#include "daemon/net/asio.h"
#include "daemon/net/cidr.h"
#include "daemon/observe/http2_stats.h"

namespace sumcache::daemon {

class Http2Exchange;

class Http2Frames {
 public:
  struct Hooks {
    // A request's head is complete: its handler may start (after the
    // current receive returns, never inside it).
    std::function<void(std::shared_ptr<Http2Exchange>)> start_stream;
    // Frames are ready to go out.
    std::function<void()> output_ready;
    // A header block opened, or the last stream closed: timeouts to look at again.
    std::function<void()> state_changed;
  };

  // `executor`: the connection's, for the exchanges' waits.
  Http2Frames(const config::LimitsConfig& limits, Http2Stats& stats, asio::any_io_executor executor,
              const Ip6Bytes& address, const std::string& address_text, Hooks hooks);
  ~Http2Frames();
  Http2Frames(const Http2Frames&) = delete;
  Http2Frames& operator=(const Http2Frames&) = delete;

  // Bytes from the client. False when the connection must end (GOAWAY is queued).
  bool receive(const std::uint8_t* data, std::size_t size);
  // Appends the frames ready to go, until `out` holds at least `limit` bytes or none are left.
  void take_output(std::string& out, std::size_t limit);
  // Neither reading nor writing is wanted: after GOAWAY, or both sides done.
  bool over() const;
  // Ends the connection with GOAWAY `code`, counted under `why`.
  void go_away(Http2Goaway why, std::uint32_t code);
  bool header_block_open() const { return header_block_open_; }
  std::chrono::steady_clock::time_point header_block_since() const { return header_block_since_; }
  bool has_streams() const { return !streams_.empty(); }
  std::size_t stream_count() const { return streams_.size(); }
  // The connection ended: every stream's handler finds its stream closed.
  void close_all();

  // For the exchanges.
  asio::any_io_executor executor() const { return executor_; }
  // Submits a response head (interim: a 1xx, more heads follow); with `body`
  // nghttp2 pulls the body from the exchange (Http2Exchange::provide).
  bool submit_head(Http2Exchange& stream, const H2ResponseHead& head, bool body, bool interim);
  void resume(std::int32_t id);
  // Body bytes a handler has read: the windows open by as much.
  void consume(std::int32_t id, std::size_t size);
  void reset(std::int32_t id, Http2Reset why);
  void flush() {
    if (hooks_.output_ready) hooks_.output_ready();
  }

 private:
  friend struct Http2Callbacks;

  Http2Exchange* find(std::int32_t id);
  // One more frame against a per-second budget; false once it is spent.
  static bool within_budget(std::uint32_t& count, std::chrono::steady_clock::time_point& window,
                            std::uint32_t budget);

  // nghttp2's events.
  int on_begin_frame(const nghttp2_frame_hd& hd);
  int on_begin_headers(const nghttp2_frame& frame);
  int on_header(const nghttp2_frame& frame, std::string_view name, std::string_view value);
  int on_frame_recv(const nghttp2_frame& frame);
  int on_data(std::int32_t id, const std::uint8_t* data, std::size_t size);
  int on_stream_close(std::int32_t id);
  // A DATA frame whose body nghttp2 did not copy: its head and the
  // stream's bytes go straight into the batch take_output is filling.
  int on_send_data(const nghttp2_frame& frame, const std::uint8_t* head, std::size_t length,
                   Http2Exchange& stream);

  const config::LimitsConfig limits_;
  Http2Stats& stats_;
  asio::any_io_executor executor_;
  const Ip6Bytes& address_;
  const std::string& address_text_;
  Hooks hooks_;
  nghttp2_session* session_ = nullptr;
  std::string* batch_ = nullptr;  // while take_output runs
  std::size_t batch_limit_ = 0;
  std::map<std::int32_t, std::shared_ptr<Http2Exchange>> streams_;
  bool ended_ = false;  // GOAWAY submitted by go_away
  bool header_block_open_ = false;
  std::chrono::steady_clock::time_point header_block_since_;
  std::uint32_t resets_ = 0;
  std::chrono::steady_clock::time_point resets_window_;
  std::uint32_t control_frames_ = 0;
  std::chrono::steady_clock::time_point control_window_;
};

}  // namespace sumcache::daemon
