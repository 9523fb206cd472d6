#include "daemon/session/http2_frames.h"

#include <algorithm>
#include <vector>

#include "daemon/session/http2_exchange.h"

namespace sumcache::daemon {
namespace {

std::string_view view(const std::uint8_t* p, std::size_t n) {
  return {reinterpret_cast<const char*>(p), n};
}

nghttp2_nv field_nv(const std::string& name, const std::string& value) {
  return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
          reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
          value.size(), NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

// nghttp2's C callbacks, each handing the event to its Http2Frames.
struct Http2Callbacks {
  static Http2Frames& of(void* user) { return *static_cast<Http2Frames*>(user); }

  static int begin_frame(nghttp2_session*, const nghttp2_frame_hd* hd, void* user) {
    return of(user).on_begin_frame(*hd);
  }
  static int begin_headers(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    return of(user).on_begin_headers(*frame);
  }
  static int header(nghttp2_session*, const nghttp2_frame* frame, const std::uint8_t* name,
                    std::size_t namelen, const std::uint8_t* value, std::size_t valuelen,
                    std::uint8_t, void* user) {
    return of(user).on_header(*frame, view(name, namelen), view(value, valuelen));
  }
  static int frame_recv(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    return of(user).on_frame_recv(*frame);
  }
  static int data_chunk(nghttp2_session*, std::uint8_t, std::int32_t id, const std::uint8_t* data,
                        std::size_t len, void* user) {
    return of(user).on_data(id, data, len);
  }
  static int stream_close(nghttp2_session*, std::int32_t id, std::uint32_t, void* user) {
    return of(user).on_stream_close(id);
  }
  static ssize_t read_data(nghttp2_session*, std::int32_t, std::uint8_t*, std::size_t length,
                           std::uint32_t* flags, nghttp2_data_source* source, void*) {
    return static_cast<Http2Exchange*>(source->ptr)->provide(length, flags);
  }
  static int send_data(nghttp2_session*, nghttp2_frame* frame, const std::uint8_t* head,
                       std::size_t length, nghttp2_data_source* source, void* user) {
    return of(user).on_send_data(*frame, head, length, *static_cast<Http2Exchange*>(source->ptr));
  }
};

Http2Frames::Http2Frames(const config::LimitsConfig& limits, Http2Stats& stats,
                         asio::any_io_executor executor, const Ip6Bytes& address,
                         const std::string& address_text, Hooks hooks)
    : limits_(limits),
      stats_(stats),
      executor_(std::move(executor)),
      address_(address),
      address_text_(address_text),
      hooks_(std::move(hooks)) {
  nghttp2_session_callbacks* callbacks = nullptr;
  nghttp2_session_callbacks_new(&callbacks);
  nghttp2_session_callbacks_set_on_begin_frame_callback(callbacks, &Http2Callbacks::begin_frame);
  nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks,
                                                          &Http2Callbacks::begin_headers);
  nghttp2_session_callbacks_set_on_header_callback(callbacks, &Http2Callbacks::header);
  nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, &Http2Callbacks::frame_recv);
  nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, &Http2Callbacks::data_chunk);
  nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, &Http2Callbacks::stream_close);
  nghttp2_session_callbacks_set_send_data_callback(callbacks, &Http2Callbacks::send_data);
  nghttp2_option* option = nullptr;
  nghttp2_option_new(&option);
  // The window opens as handlers read (consume), so a client cannot make a
  // stream hold more than one window of body a handler has not taken.
  nghttp2_option_set_no_auto_window_update(option, 1);
  nghttp2_option_set_max_continuations(option, limits_.http2_max_continuations);
  nghttp2_option_set_max_deflate_dynamic_table_size(option, 4096);
  // nghttp2's own rapid-reset bucket stays a backstop above ours.
  nghttp2_option_set_stream_reset_rate_limit(option, 4 * limits_.http2_max_resets_per_second,
                                             4 * limits_.http2_max_resets_per_second);
  nghttp2_session_server_new2(&session_, callbacks, this, option);
  nghttp2_option_del(option);
  nghttp2_session_callbacks_del(callbacks);
  const nghttp2_settings_entry settings[] = {
      {NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, limits_.http2_max_concurrent_streams},
      {NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, limits_.http2_header_table_size},
      {NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE,
       static_cast<std::uint32_t>(std::min<std::uint64_t>(limits_.max_header_bytes, UINT32_MAX))},
      {NGHTTP2_SETTINGS_ENABLE_PUSH, 0},
  };
  nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, settings, std::size(settings));
}

Http2Frames::~Http2Frames() { nghttp2_session_del(session_); }

Http2Exchange* Http2Frames::find(std::int32_t id) {
  const auto it = streams_.find(id);
  return it == streams_.end() ? nullptr : it->second.get();
}

bool Http2Frames::within_budget(std::uint32_t& count, std::chrono::steady_clock::time_point& window,
                                std::uint32_t budget) {
  const auto now = std::chrono::steady_clock::now();
  if (now - window >= std::chrono::seconds(1)) {
    window = now;
    count = 0;
  }
  return ++count <= budget;
}

void Http2Frames::go_away(Http2Goaway why, std::uint32_t code) {
  if (ended_) return;
  ended_ = true;
  stats_.count(why);
  nghttp2_session_terminate_session(session_, code);
  flush();
}

int Http2Frames::on_begin_frame(const nghttp2_frame_hd& hd) {
  // A header block is open from a HEADERS without END_HEADERS until the
  // CONTINUATION that has it (RFC 9113 §6.10); nothing else may come between.
  const bool was_open = header_block_open_;
  if (hd.type == NGHTTP2_HEADERS || hd.type == NGHTTP2_CONTINUATION) {
    header_block_open_ = !(hd.flags & NGHTTP2_FLAG_END_HEADERS);
  }
  if (header_block_open_ && !was_open) {
    header_block_since_ = std::chrono::steady_clock::now();
    if (hooks_.state_changed) hooks_.state_changed();
  }
  return 0;
}

int Http2Frames::on_begin_headers(const nghttp2_frame& frame) {
  if (frame.hd.type != NGHTTP2_HEADERS || frame.headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  auto stream = std::make_shared<Http2Exchange>(*this, frame.hd.stream_id, address_, address_text_,
                                                limits_.max_header_bytes, limits_.max_body_bytes);
  streams_.emplace(frame.hd.stream_id, std::move(stream));
  return 0;
}

int Http2Frames::on_header(const nghttp2_frame& frame, std::string_view name,
                           std::string_view value) {
  if (frame.hd.type != NGHTTP2_HEADERS || frame.headers.cat != NGHTTP2_HCAT_REQUEST) return 0;
  Http2Exchange* stream = find(frame.hd.stream_id);
  if (stream == nullptr) return 0;
  if (stream->add_field(name, value)) return 0;
  stats_.count(Http2Reset::header_too_large);
  return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;  // this stream is reset
}

int Http2Frames::on_frame_recv(const nghttp2_frame& frame) {
  switch (frame.hd.type) {
    case NGHTTP2_HEADERS: {
      Http2Exchange* stream = find(frame.hd.stream_id);
      if (stream == nullptr) return 0;
      if (frame.hd.flags & NGHTTP2_FLAG_END_STREAM) stream->end_body();
      if (frame.headers.cat == NGHTTP2_HCAT_REQUEST) {
        if (hooks_.start_stream) hooks_.start_stream(streams_.at(frame.hd.stream_id));
      }
      return 0;
    }
    case NGHTTP2_DATA:
      if (frame.hd.flags & NGHTTP2_FLAG_END_STREAM) {
        if (Http2Exchange* stream = find(frame.hd.stream_id)) stream->end_body();
      }
      return 0;
    case NGHTTP2_RST_STREAM:
      if (!within_budget(resets_, resets_window_, limits_.http2_max_resets_per_second)) {
        go_away(Http2Goaway::rapid_reset, NGHTTP2_ENHANCE_YOUR_CALM);
      }
      return 0;
    case NGHTTP2_SETTINGS:
    case NGHTTP2_PING:
      if (frame.hd.flags & NGHTTP2_FLAG_ACK) return 0;
      [[fallthrough]];
    case NGHTTP2_PRIORITY:
      if (!within_budget(control_frames_, control_window_,
                         limits_.http2_max_control_frames_per_second)) {
        go_away(Http2Goaway::control_flood, NGHTTP2_ENHANCE_YOUR_CALM);
      }
      return 0;
    default:
      return 0;
  }
}

int Http2Frames::on_data(std::int32_t id, const std::uint8_t* data, std::size_t size) {
  Http2Exchange* stream = find(id);
  if (stream == nullptr) {
    nghttp2_session_consume_connection(session_, size);
    return 0;
  }
  if (!stream->add_body(data, size)) {
    stats_.count(Http2Reset::body_too_large);
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, NGHTTP2_REFUSED_STREAM);
    nghttp2_session_consume(session_, id, size);
  }
  return 0;
}

int Http2Frames::on_stream_close(std::int32_t id) {
  const auto it = streams_.find(id);
  if (it == streams_.end()) return 0;
  it->second->closed();
  streams_.erase(it);
  if (streams_.empty() && hooks_.state_changed) hooks_.state_changed();
  return 0;
}

int Http2Frames::on_send_data(const nghttp2_frame& frame, const std::uint8_t* head,
                              std::size_t length, Http2Exchange& stream) {
  // Only take_output asks nghttp2 for frames, so the batch is there.
  std::string& out = *batch_;
  constexpr std::size_t kFrameHead = 9;
  out.append(reinterpret_cast<const char*>(head), kFrameHead);
  const std::size_t padding = frame.data.padlen;
  if (padding > 0) out.push_back(static_cast<char>(padding - 1));
  stream.emit(out, length);
  if (padding > 1) out.append(padding - 1, '\0');
  return out.size() >= batch_limit_ ? NGHTTP2_ERR_PAUSE : 0;
}

bool Http2Frames::submit_head(Http2Exchange& stream, const H2ResponseHead& head, bool body,
                              bool interim) {
  const std::string status = std::to_string(head.status);
  static const std::string kStatus = ":status";
  std::vector<nghttp2_nv> nv;
  nv.reserve(head.fields.size() + 1);
  nv.push_back(field_nv(kStatus, status));
  for (const auto& f : head.fields) nv.push_back(field_nv(f.name, f.value));
  int rv = 0;
  if (interim) {
    rv = nghttp2_submit_headers(session_, NGHTTP2_FLAG_NONE, stream.id(), nullptr, nv.data(),
                                nv.size(), nullptr);
  } else {
    nghttp2_data_provider provider{};
    provider.source.ptr = &stream;
    provider.read_callback = &Http2Callbacks::read_data;
    rv = nghttp2_submit_response(session_, stream.id(), nv.data(), nv.size(),
                                 body ? &provider : nullptr);
  }
  flush();
  return rv == 0;
}

void Http2Frames::resume(std::int32_t id) { nghttp2_session_resume_data(session_, id); }

void Http2Frames::consume(std::int32_t id, std::size_t size) {
  nghttp2_session_consume(session_, id, size);
  flush();
}

void Http2Frames::reset(std::int32_t id, Http2Reset why) {
  stats_.count(why);
  nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, NGHTTP2_INTERNAL_ERROR);
  flush();
}

bool Http2Frames::receive(const std::uint8_t* data, std::size_t size) {
  const auto rv = nghttp2_session_mem_recv(session_, data, size);
  if (rv >= 0) return true;
  go_away(rv == NGHTTP2_ERR_TOO_MANY_CONTINUATIONS ? Http2Goaway::continuation_flood
                                                   : Http2Goaway::protocol_error,
          rv == NGHTTP2_ERR_TOO_MANY_CONTINUATIONS ? NGHTTP2_ENHANCE_YOUR_CALM
                                                   : NGHTTP2_PROTOCOL_ERROR);
  return false;
}

void Http2Frames::take_output(std::string& out, std::size_t limit) {
  batch_ = &out;
  batch_limit_ = limit;
  while (out.size() < limit) {
    const std::uint8_t* data = nullptr;
    const auto n = nghttp2_session_mem_send(session_, &data);
    if (n <= 0) break;
    out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
  }
  batch_ = nullptr;
}

bool Http2Frames::over() const {
  return !nghttp2_session_want_read(session_) && !nghttp2_session_want_write(session_);
}

void Http2Frames::close_all() {
  for (auto& [id, stream] : streams_) stream->closed();
}

}  // namespace sumcache::daemon
