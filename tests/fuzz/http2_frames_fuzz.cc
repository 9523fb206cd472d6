// The HTTP/2 connection's input (daemon/session/http2_frames.h): a client's
// bytes after the preface, fed to nghttp2 and our callbacks in pieces whose
// sizes the input chooses; each stream whose head completes is answered as the
// input says (a head alone, a head and a deferred body, a reset), and the
// output is drained after each piece. Properties:
// - no crash, leak or bad access (ASan, UBSan);
// - the output is whole frames, the first a SETTINGS, none longer than the
//   default SETTINGS_MAX_FRAME_SIZE;
// - streams held never pass http2_max_concurrent_streams;
// - once the connection is over, further input is refused.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "daemon/session/http2_exchange.h"
#include "daemon/session/http2_frames.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache;
using namespace sumcache::daemon;

namespace {

constexpr std::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr std::size_t kMaxFrame = 16384;

// Checks that `out` is whole frames, the first of the connection a SETTINGS.
void check_frames(const std::string& out, bool& first) {
  std::size_t at = 0;
  while (at < out.size()) {
    SUMCACHE_FUZZ_CHECK(out.size() - at >= 9);
    const auto* p = reinterpret_cast<const std::uint8_t*>(out.data() + at);
    const std::size_t length = (std::size_t{p[0]} << 16) | (std::size_t{p[1]} << 8) | p[2];
    SUMCACHE_FUZZ_CHECK(length <= kMaxFrame);
    if (first) {
      SUMCACHE_FUZZ_CHECK(p[3] == NGHTTP2_SETTINGS);
      first = false;
    }
    at += 9 + length;
    SUMCACHE_FUZZ_CHECK(at <= out.size());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static asio::io_context io;  // never run: the exchanges' timers only need an executor
  config::LimitsConfig limits;
  limits.http2_max_concurrent_streams = 8;
  limits.max_header_bytes = 4096;
  limits.max_body_bytes = 65536;
  Http2Stats stats;
  const Ip6Bytes address{};
  const std::string address_text = "fuzz";
  std::vector<std::shared_ptr<Http2Exchange>> started;
  bool first = true;
  std::size_t at = 0;
  auto byte = [&] { return at < size ? data[at++] : std::uint8_t{0}; };

  Http2Frames frames(limits, stats, io.get_executor(), address, address_text,
                     {.start_stream =
                          [&](std::shared_ptr<Http2Exchange> stream) {
                            stream->finish_head(at % 2 == 0);
                            started.push_back(std::move(stream));
                          },
                      .output_ready = {},
                      .state_changed = {}});
  std::string out;
  bool open =
      frames.receive(reinterpret_cast<const std::uint8_t*>(kPreface.data()), kPreface.size());
  SUMCACHE_FUZZ_CHECK(open);
  while (at < size) {
    const std::size_t piece = std::min<std::size_t>(1 + byte() * 4, size - at);
    const bool accepted = frames.receive(data + at, piece);
    at += piece;
    SUMCACHE_FUZZ_CHECK(frames.stream_count() <= limits.http2_max_concurrent_streams);
    // Answer what started, as the next byte says.
    for (auto& stream : started) {
      const std::uint8_t how = byte();
      if (stream->is_closed()) continue;
      H2ResponseHead head{200U + how % 4U, {{"content-type", "text/plain"}}};
      if (how % 3 == 0) {
        frames.submit_head(*stream, head, false, false);
      } else if (how % 3 == 1) {
        frames.submit_head(*stream, head, true, false);
      } else {
        frames.reset(stream->id(), Http2Reset::incomplete);
      }
      stream->finish();
    }
    started.clear();
    out.clear();
    frames.take_output(out, 1 << 20);
    check_frames(out, first);
    if (!accepted || frames.over()) {
      SUMCACHE_FUZZ_CHECK(frames.over() || !accepted);
      break;
    }
  }
  return 0;
}
