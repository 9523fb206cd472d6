#pragma once
// One HTTP/2 stream as a ClientExchange (client_exchange.h): the request head
// from its HEADERS (pseudo-fields mapped by http/h2_mapping.h), its body from
// DATA frames as flow control lets them in, and the response handed to the
// connection's Http2Frames (http2_frames.h), which frames it. A write
// returns once nghttp2 has taken the bytes, so the caller's buffer may go;
// a stream whose window stays shut past the write timeout is reset.

#include <nghttp2/nghttp2.h>

#include <string>

#include "daemon/exchange/client_exchange.h"
#include "daemon/http/h2_mapping.h"

namespace sumcache::daemon {

class Http2Frames;

class Http2Exchange final : public ClientExchange {
 public:
  Http2Exchange(Http2Frames& frames, std::int32_t stream_id, const Ip6Bytes& address,
                const std::string& address_text, std::uint64_t max_header_bytes,
                std::uint64_t max_body_bytes);

  const beast::http::request_header<>& request() const override { return request_; }
  bool body_done() const override { return inbound_ended_ && inbound_.size() == 0; }
  std::optional<std::uint64_t> body_length() const override { return declared_length_; }
  bool body_chunked() const override { return !inbound_ended_ && !declared_length_; }
  awaitable<Written> read_body(asio::mutable_buffer into,
                               std::chrono::milliseconds timeout) override;

  awaitable<Written> write_response(std::string_view head, std::string_view tail,
                                    asio::const_buffer body, ResponseBody framing) override;
  awaitable<Written> write_body(asio::const_buffer body, bool last) override;
  awaitable<Written> write_interim(std::string_view head) override;

  std::int32_t id() const { return id_; }

  // From Http2Frames, as nghttp2 reports frames.
  // A request field; false once the head is past max_header_bytes (the
  // stream is then reset).
  bool add_field(std::string_view name, std::string_view value);
  // The head is complete: nullopt, or why it is malformed (answered 400).
  std::optional<std::string> finish_head(bool absolute_form);
  // Body bytes; false past max_body_bytes.
  bool add_body(const std::uint8_t* data, std::size_t size);
  void end_body();
  void closed();
  // nghttp2's data source: how many of the bytes the writer handed over the
  // next DATA frame carries (at most `length`), and whether it ends the body.
  ssize_t provide(std::size_t length, std::uint32_t* flags);
  // That frame goes out: its `length` bytes are appended to `out`.
  void emit(std::string& out, std::size_t length);
  // The handler returned: a response it did not finish is reset, and body
  // bytes still buffered go back to the connection's window.
  void finish();
  bool is_closed() const { return closed_; }

 private:
  // Waits for the session to call wake() (true) or `timeout` (false).
  awaitable<bool> wait(std::chrono::steady_clock::duration timeout);
  void wake() { signal_.cancel(); }
  awaitable<Written> hand_over(asio::const_buffer body, bool last);

  Http2Frames& frames_;
  std::int32_t id_;
  beast::http::request_header<> request_;
  H2Pseudo pseudo_;
  std::uint64_t header_bytes_ = 0;
  std::uint64_t max_header_bytes_;
  std::uint64_t max_body_bytes_;
  std::uint64_t body_bytes_ = 0;
  std::optional<std::uint64_t> declared_length_;
  beast::flat_buffer inbound_;
  bool inbound_ended_ = false;
  bool closed_ = false;       // nghttp2 closed the stream (reset, or done)
  bool responded_ = false;    // the final head was submitted
  bool ended_ = false;        // the body's end was handed to nghttp2
  bool finished_ = false;     // the handler returned
  std::string_view pending_;  // the caller's bytes not yet taken by nghttp2
  bool last_ = false;
  asio::steady_timer signal_;
};

}  // namespace sumcache::daemon
