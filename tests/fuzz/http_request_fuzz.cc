// Client requests as the proxy reads them (daemon/session/client_session.cc): a
// request_parser<buffer_body> with the header and body limits of the default
// config, requests one after another on the connection while each is complete
// and keep-alive, bodies (chunked included) read through a sink as the proxy
// relays them upstream. Each parsed head goes through the pure decisions the
// proxy takes on it: routing (forward and reverse mode), the loop check, the
// cache's request directives, Vary, conditionals and ranges, and the hop-by-hop
// edit of the head forwarded upstream.
//
// Properties: a head the framing check (daemon/http/message_framing.h) accepts
// is framed as Beast reads it; the head forwarded upstream carries no CR, LF or
// NUL in a field and no hop-by-hop field; a request is never read past its end.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "config/default_config.h"
#include "config/load_config.h"
#include "daemon/exchange/head_writer.h"
#include "daemon/exchange/header_convert.h"
#include "daemon/exchange/request_route.h"
#include "daemon/http/cache_control.h"
#include "daemon/http/hop_by_hop.h"
#include "daemon/http/message_framing.h"
#include "daemon/http/range.h"
#include "daemon/http/validation.h"
#include "daemon/http/vary.h"
#include "tests/fuzz/beast_feed.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache::daemon;
namespace fuzz = sumcache::fuzz;

namespace {

constexpr int kMaxRequests = 8;  // per input: enough for pipelining, bounded per run

const sumcache::config::Config& forward_config() {
  static const auto config = sumcache::config::default_config();
  return config;
}

const sumcache::config::Config& reverse_config() {
  static const auto config = sumcache::config::parse_config(
      R"({"node": {"id": "edge-1"}, "mode": "reverse",
          "reverse": {"origin": "http://127.0.0.1:8080", "host_header": "keep"}})",
      "fuzz");
  return config;
}

bool forwardable(char c) { return c != '\r' && c != '\n' && c != '\0'; }

void check_forwarded_head(const beast::http::request_header<>& received) {
  beast::http::request_header<> head = received;
  strip_hop_by_hop(head);
  append_via(head, "1.1 edge-1");
  for (const auto& field : head) {
    SUMCACHE_FUZZ_CHECK(!is_hop_by_hop(field.name_string()));
    for (char c : field.value()) SUMCACHE_FUZZ_CHECK(forwardable(c));
  }
  static_cast<void>(serialize_fields(head));
}

// The proxy's framing check, which runs first: false when it refuses the
// request (4xx and close). What it accepts, Beast must frame the same way, or
// the two would disagree on where the body ends.
bool framing_accepted(const beast::http::request_parser<beast::http::buffer_body>& parser) {
  const auto& head = parser.get();
  const auto framing = request_framing(head.version(), framing_fields(head.base()));
  const auto* body = std::get_if<BodyFraming>(&framing);
  if (body == nullptr) return false;
  switch (body->kind) {
    case BodyFraming::Kind::chunked:
      SUMCACHE_FUZZ_CHECK(parser.chunked());
      break;
    case BodyFraming::Kind::length:
      SUMCACHE_FUZZ_CHECK(!parser.chunked() && parser.content_length() == body->length);
      break;
    case BodyFraming::Kind::none:
      SUMCACHE_FUZZ_CHECK(!parser.chunked() && !parser.content_length());
      break;
    case BodyFraming::Kind::until_close:
      SUMCACHE_FUZZ_CHECK(false);  // never for a request (RFC 9112 §6.3 item 7)
      break;
  }
  return true;
}

// What the proxy decides from a head before it forwards anything.
void inspect_head(const beast::http::request_header<>& head) {
  const HeaderList headers = to_header_list(head);
  static_cast<void>(via_has_node(headers, "edge-1"));
  const auto host = head[beast::http::field::host];
  const auto host_value = host.empty() ? std::nullopt : std::optional(host);
  for (const auto* config : {&forward_config(), &reverse_config()}) {
    const auto routed = route_request(*config, head.method_string(), head.target(), host_value);
    if (const auto* route = std::get_if<Route>(&routed)) {
      SUMCACHE_FUZZ_CHECK(!route->cache_key.empty() || route->kind == RouteKind::tunnel);
    }
  }
  static_cast<void>(request_directives(headers));
  static_cast<void>(secondary_key("Accept-Encoding, Accept-Language, Cookie", headers));
  static const HeaderList stored = {{"Date", "Tue, 14 Nov 2023 22:13:20 GMT"},
                                    {"Last-Modified", "Mon, 13 Nov 2023 22:13:20 GMT"},
                                    {"ETag", "\"v1\""},
                                    {"Cache-Control", "max-age=60"}};
  const auto now = std::chrono::sys_seconds(std::chrono::seconds(1'700'000'000));
  static_cast<void>(evaluate_conditional(head.method_string(), headers, stored, now));
  for (std::uint64_t length : {std::uint64_t{0}, std::uint64_t{1000}}) {
    static_cast<void>(decide_range(head.method_string(), headers, stored, length, now));
  }
  check_forwarded_head(head);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto& limits = forward_config().limits;
  std::string_view input(reinterpret_cast<const char*>(data), size);
  for (int i = 0; i < kMaxRequests && !input.empty(); ++i) {
    beast::http::request_parser<beast::http::buffer_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
    parser.body_limit(limits.max_body_bytes);
    if (fuzz::read_head(parser, input)) return 0;  // the proxy answers 4xx and closes
    if (!framing_accepted(parser)) return 0;  // 400, 501 or 505, and the connection closes
    inspect_head(parser.get());
    std::size_t body_bytes = 0;
    const std::size_t before = input.size();
    if (fuzz::read_body(parser, input, body_bytes)) return 0;
    if (const auto length = parser.content_length()) {
      SUMCACHE_FUZZ_CHECK(!parser.chunked() && body_bytes == *length);
      SUMCACHE_FUZZ_CHECK(before - input.size() == *length);
    }
    if (!parser.keep_alive()) return 0;
  }
  return 0;
}
