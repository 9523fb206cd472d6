// Upstream responses as the proxy reads them (daemon/exchange/upstream_exchange.cc):
// a response_parser<buffer_body> with no body limit and Beast's header limit,
// interim 1xx heads skipped (each relayed to the client as serialize_head makes
// it), 101 refused, skip() for the answer to a HEAD; the body read through a sink.
// The final head goes where the cache takes it (daemon/cache/cache_service.cc,
// relay_and_store): directives (through the targeted fields), a 206's
// Content-Range checks, storability (and a POST answer's, uncached_forward.cc),
// the Vary key, the stored head and meta;
// then what a later hit computes from that meta.
//
// Properties: a final head the framing check (daemon/http/message_framing.h)
// accepts is framed as Beast reads it; a relayed head carries no CR, LF or NUL in a field; the
// stored head and meta are what a hit reads back (the meta decodes to what was encoded, the head
// parses to its own fields); a Content-Length body is read to exactly its length.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "daemon/cache/cache_fill.h"
#include "daemon/cache/cached_meta.h"
#include "daemon/cache/stored_head.h"
#include "daemon/exchange/head_writer.h"
#include "daemon/exchange/header_convert.h"
#include "daemon/http/cacheability.h"
#include "daemon/http/content_range.h"
#include "daemon/http/message_framing.h"
#include "daemon/http/post_cacheability.h"
#include "daemon/http/targeted_cache_control.h"
#include "daemon/http/use_decision.h"
#include "daemon/http/vary.h"
#include "tests/fuzz/beast_feed.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache::daemon;
namespace fuzz = sumcache::fuzz;

namespace {

constexpr int kMaxInterim = 8;  // bounded per run; the proxy reads until the first-byte timeout
// The default cache.targeted_fields, so the targeted parser sees fuzzed fields too.
const std::vector<std::string> kTargeted{"CDN-Cache-Control"};

bool forwardable(char c) { return c != '\r' && c != '\n' && c != '\0'; }

void check_relayed(const beast::http::response_header<>& received) {
  beast::http::response_header<> head = received;
  strip_hop_by_hop(head);
  append_via(head, "1.1 edge-1");
  for (const auto& field : head) {
    for (char c : field.value()) SUMCACHE_FUZZ_CHECK(forwardable(c));
  }
  static_cast<void>(serialize_head(head));
}

// A 206 as the cache checks it before keeping it (daemon/cache/partial_serve.cc): a range
// it would keep lies inside the representation, within the object bound, and matches a
// Content-Length the head announced.
void check_partial(const HeaderList& fields, std::uint64_t body_size) {
  constexpr std::uint64_t kMaxObject = 64u << 20;
  const PartialFacts partial = check_partial_response(fields, kMaxObject);
  if (partial.check != PartialCheck::storable) return;
  const ContentRange& r = partial.range;
  SUMCACHE_FUZZ_CHECK(r.first <= r.last && r.last < r.complete && r.complete <= kMaxObject);
  if (has_field(fields, "Content-Length")) SUMCACHE_FUZZ_CHECK(body_size == r.length());
}

// `head_method`: the answer to a HEAD, whose body is not read (nor kept as a partial response).
void store_and_hit(const beast::http::response_header<>& head, std::uint64_t body_size,
                   bool head_method) {
  static const HeaderList request = {{"Accept-Encoding", "gzip"}, {"Cookie", "a=1"}};
  static const RequestDirectives request_directives;
  const auto now = std::chrono::sys_seconds(std::chrono::seconds(1'700'000'000));
  ResponseFacts facts{static_cast<int>(head.result_int()),
                      std::string(head.reason()),
                      to_header_list(head),
                      {},
                      {now - std::chrono::seconds(1), now}};
  facts.directives = effective_response_directives(facts.fields, kTargeted);
  if (facts.status == 206 && !head_method) check_partial(facts.fields, body_size);
  const StoreInput input{"GET",        request,          request_directives, facts.status,
                         facts.fields, facts.directives, 64u << 20};
  const bool storable = storability(input) == StoreReason::storable;
  // The answer to a POST (daemon/cache/uncached_forward.cc): its Content-Location, the
  // origin's bytes, resolved and compared as a cache key (RFC 9110 §9.3.3). What it
  // stores, a GET response would store too.
  static const EffectiveUri kPostTarget{"http", "origin.test", 80, "/form", std::nullopt};
  const StoreInput post{"POST",       request,          request_directives, facts.status,
                        facts.fields, facts.directives, 64u << 20};
  SUMCACHE_FUZZ_CHECK(post_storability(post, kPostTarget) != PostStoreReason::storable || storable);
  if (!storable) return;
  const auto variant = secondary_key(joined_value(facts.fields, "Vary").value_or(""), request);
  if (!variant) return;
  const auto [stored, meta_bytes] = stored_head_and_meta(facts, body_size, "1.1 edge-1", {});
  const auto meta = decode_meta(meta_bytes);
  SUMCACHE_FUZZ_CHECK(meta.has_value());
  SUMCACHE_FUZZ_CHECK(encode_meta(*meta) == meta_bytes);
  SUMCACHE_FUZZ_CHECK(vary_matches(meta->vary, *variant, request));
  const StoredHead parsed = parse_stored_head(stored);
  SUMCACHE_FUZZ_CHECK(build_head(parsed.status_line, parsed.fields) == stored);
  for (const auto later :
       {now, now + std::chrono::seconds(30), now + std::chrono::hours(24 * 365)}) {
    static_cast<void>(decide_use(meta->freshness, meta->directives, request_directives, later));
  }
  static const HeaderList not_modified = {{"Date", "Tue, 14 Nov 2023 22:14:00 GMT"},
                                          {"Cache-Control", "max-age=120"}};
  static_cast<void>(
      refreshed_head_and_meta(stored, *meta, not_modified, facts.times, {}, kTargeted));
}

// Returns false when the exchange ends here (an error, or no final head).
bool exchange(std::string_view input, bool head_method) {
  std::optional<beast::http::response_parser<beast::http::buffer_body>> parser;
  for (int i = 0;; ++i) {
    parser.emplace();
    parser->body_limit(boost::none);
    if (head_method) parser->skip(true);
    if (fuzz::read_head(*parser, input)) return false;
    const unsigned status = parser->get().result_int();
    if (status >= 200) break;
    if (status == 101 || i == kMaxInterim) return false;
    check_relayed(parser->get());
  }
  // The proxy answers 502 to what its framing check refuses, and drops the connection.
  const auto& final_head = parser->get();
  const auto framing = response_framing(final_head.version(), final_head.result_int(),
                                        head_method ? "HEAD" : "GET", framing_fields(final_head));
  const auto* framed = std::get_if<BodyFraming>(&framing);
  if (framed == nullptr) return false;
  if (framed->kind == BodyFraming::Kind::chunked) SUMCACHE_FUZZ_CHECK(parser->chunked());
  if (framed->kind == BodyFraming::Kind::length) {
    SUMCACHE_FUZZ_CHECK(!parser->chunked() && parser->content_length() == framed->length);
  }
  check_relayed(parser->get());
  std::size_t body_bytes = 0;
  const std::size_t before = input.size();
  const auto ec = fuzz::read_body(*parser, input, body_bytes);
  // RFC 9112 §6.3: a 204 or 304 has no body, whatever its Content-Length says.
  const unsigned status = parser->get().result_int();
  if (!ec && !head_method && status != 204 && status != 304) {
    if (const auto length = parser->content_length()) {
      SUMCACHE_FUZZ_CHECK(body_bytes == *length && before - input.size() == *length);
    }
  }
  if (!ec) store_and_hit(parser->get(), body_bytes, head_method);
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  exchange(input, false);
  exchange(input, true);
  return 0;
}
