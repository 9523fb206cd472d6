// /obj/<anything>: a cacheable object whose headers come from the query, with
// conditional requests answered per RFC 9110 §13.

#include <string>

#include "tests/support/origin_routes.h"

namespace sumcache::testing {

namespace {

constexpr std::uint64_t kDefaultObjectBytes = 1024;
constexpr std::uint64_t kMaxNumber = 1ULL << 40;  // caps max_age and the epoch seconds

// A weak comparison of entity-tags ignores the W/ prefix (RFC 9110 §8.8.3.2).
std::string_view opaque_tag(std::string_view tag) {
  return tag.starts_with("W/") ? tag.substr(2) : tag;
}

// If-None-Match (RFC 9110 §13.1.2): "*" or a list of entity-tags, any matching ours weakly.
// Parsed tag by tag rather than split on commas, which may occur inside a tag.
bool none_match_hits(std::string_view list, std::string_view etag) {
  std::size_t i = 0;
  while (i < list.size()) {
    if (list[i] == ' ' || list[i] == '\t' || list[i] == ',') {
      ++i;
      continue;
    }
    if (list[i] == '*') return true;
    const std::size_t start = i;
    if (list.substr(i).starts_with("W/")) i += 2;
    if (i >= list.size() || list[i] != '"') return false;
    const std::size_t close = list.find('"', i + 1);
    if (close == std::string_view::npos) return false;
    if (opaque_tag(list.substr(start, close + 1 - start)) == opaque_tag(etag)) return true;
    i = close + 1;
  }
  return false;
}

// The status a conditional GET or HEAD gets instead of 200 (RFC 9110 §13.2.2): If-None-Match
// decides when present and If-Modified-Since is then ignored; 0 to send the object.
unsigned conditional_status(const OriginRequest& request, const std::string& etag,
                            std::optional<std::uint64_t> last_modified) {
  const bool safe = request.method() == http::verb::get || request.method() == http::verb::head;
  const auto inm = request.find(http::field::if_none_match);
  if (inm != request.end()) {
    if (etag.empty() || !none_match_hits(inm->value(), etag)) return 0;
    return safe ? 304 : 412;
  }
  const auto ims = request.find(http::field::if_modified_since);
  if (!safe || ims == request.end() || !last_modified) return 0;
  const auto since = parse_http_date(ims->value());  // an invalid date is ignored (§13.1.3)
  if (!since) return 0;
  return std::chrono::system_clock::from_time_t(static_cast<std::time_t>(*last_modified)) <= *since
             ? 304
             : 0;
}

// The seed of the body: body_seed, then '|' and the request's value of each field named in
// vary, so that each variant has its own bytes and a cache serving the wrong one is caught.
std::string variant_seed(const OriginRequest& request, const RequestTarget& target) {
  std::string seed = text_param(target, "body_seed");
  const std::string vary_list = text_param(target, "vary");
  std::string_view vary = vary_list;
  while (!vary.empty()) {
    const auto comma = vary.find(',');
    std::string_view name = vary.substr(0, comma);
    while (name.starts_with(' ')) name.remove_prefix(1);
    while (name.ends_with(' ')) name.remove_suffix(1);
    const auto field = request.find(name);
    seed += '|';
    if (field != request.end()) seed += std::string(field->value());
    vary = comma == std::string_view::npos ? std::string_view{} : vary.substr(comma + 1);
  }
  return seed;
}

// `fields`: "Name: value" lines separated by '\n', each appended as sent, so a test can give
// any response field (CDN-Cache-Control, a malformed Expires, a second Cache-Control line).
// A line without ':' is skipped: the test sees the field missing from the response.
void add_extra_fields(std::string_view lines, ResponsePlan& plan) {
  while (!lines.empty()) {
    const auto newline = lines.find('\n');
    const std::string_view line = lines.substr(0, newline);
    lines = newline == std::string_view::npos ? std::string_view{} : lines.substr(newline + 1);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) continue;
    std::string_view value = line.substr(colon + 1);
    while (value.starts_with(' ')) value.remove_prefix(1);
    plan.head.insert(line.substr(0, colon), value);
  }
}

std::string quoted_etag(const std::string& etag) {
  if (etag.empty() || etag.starts_with('"') || etag.starts_with("W/")) return etag;
  return '"' + etag + '"';
}

std::string time_text(std::uint64_t epoch_seconds) {
  return format_http_date(
      std::chrono::system_clock::from_time_t(static_cast<std::time_t>(epoch_seconds)));
}

// The query of an /obj request, checked.
struct ObjectParams {
  std::uint64_t size = kDefaultObjectBytes;
  unsigned status = 200;
  std::optional<std::uint64_t> max_age;
  std::optional<std::uint64_t> last_modified;
  std::string expires;  // the field value to send, empty for none
  std::string etag;     // quoted
};

// Sets `out` when parameter `name` is present; false when it is present but not a number <= cap.
bool optional_number(const RequestTarget& target, const char* name, std::uint64_t cap,
                     std::optional<std::uint64_t>& out) {
  if (!target.params.contains(name)) return true;
  out = number_param(target, name, 0, cap);
  return out.has_value();
}

std::optional<ObjectParams> parse_object_params(const RequestTarget& target) {
  ObjectParams p;
  const auto size = number_param(target, "size", kDefaultObjectBytes, kMaxBodyBytes);
  const auto status = number_param(target, "status", 200, 599);
  std::optional<std::uint64_t> expires;
  const bool invalid_expires = text_param(target, "expires") == "invalid";
  if (!size || !status || *status < 200 ||
      !optional_number(target, "max_age", kMaxNumber, p.max_age) ||
      !optional_number(target, "last_modified", kMaxNumber, p.last_modified) ||
      (!invalid_expires && !optional_number(target, "expires", kMaxNumber, expires))) {
    return std::nullopt;
  }
  p.size = *size;
  p.status = static_cast<unsigned>(*status);
  // "invalid" sends "0", the classic malformed Expires meaning "already expired" (RFC 9111 §5.3).
  p.expires = invalid_expires ? "0" : expires ? time_text(*expires) : "";
  p.etag = quoted_etag(text_param(target, "etag"));
  return p;
}

void set_cache_fields(const RequestTarget& target, const ObjectParams& p, ResponsePlan& plan) {
  if (!p.etag.empty()) plan.head.set(http::field::etag, p.etag);
  if (p.last_modified) plan.head.set(http::field::last_modified, time_text(*p.last_modified));
  if (!p.expires.empty()) plan.head.set(http::field::expires, p.expires);
  std::string cache_control = text_param(target, "cc");
  if (p.max_age) {
    cache_control +=
        (cache_control.empty() ? "max-age=" : ", max-age=") + std::to_string(*p.max_age);
  }
  if (!cache_control.empty()) plan.head.set(http::field::cache_control, cache_control);
  if (const auto vary = text_param(target, "vary"); !vary.empty()) {
    plan.head.set(http::field::vary, vary);
  }
  if (const auto keys = text_param(target, "surrogate_key"); !keys.empty()) {
    plan.head.set("Surrogate-Key", keys);
  }
  if (text_param(target, "set_cookie") == "1") {
    plan.head.set(http::field::set_cookie, "sumcache_test=1; Path=/");
  }
  add_extra_fields(text_param(target, "fields"), plan);
}

struct RangeAnswer {
  unsigned status = 200;  // 200: the whole body; 206: [first, last]; 416
  std::uint64_t first = 0;
  std::uint64_t last = 0;
};

std::optional<std::uint64_t> digits(std::string_view text) {
  if (text.empty() || text.size() > 19) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
  }
  return value;
}

// ranges=1: one "bytes=" range (RFC 9110 §14.1.2) of a body of `size` bytes. Several ranges or
// an invalid one give the whole body (§14.2 lets a server ignore Range); a first position at or
// past the end, or a zero suffix, gives 416.
RangeAnswer answer_range(std::string_view range, std::uint64_t size) {
  if (!range.starts_with("bytes=") || range.find(',') != std::string_view::npos) return {};
  range.remove_prefix(6);
  const auto dash = range.find('-');
  if (dash == std::string_view::npos) return {};
  if (dash == 0) {
    const auto suffix = digits(range.substr(1));
    if (!suffix) return {};
    if (*suffix == 0 || size == 0) return {416};
    return {206, size - std::min(*suffix, size), size - 1};
  }
  const auto first = digits(range.substr(0, dash));
  const auto last = range.size() == dash + 1 ? std::optional<std::uint64_t>(UINT64_MAX)
                                             : digits(range.substr(dash + 1));
  if (!first || !last || *last < *first) return {};
  if (*first >= size) return {416};
  return {206, *first, std::min(*last, size - 1)};
}

// If-Range (RFC 9110 §13.1.5): the range only for a strong ETag match or the exact
// Last-Modified date.
bool if_range_holds(const OriginRequest& request, const ResponsePlan& plan) {
  const auto if_range = request.find(http::field::if_range);
  if (if_range == request.end()) return true;
  const std::string_view value = if_range->value();
  if (value.starts_with('"')) return value == plan.head[http::field::etag];
  return !value.empty() && value == plan.head[http::field::last_modified];
}

void apply_ranges(const OriginRequest& request, ResponsePlan& plan) {
  const auto range = request.find(http::field::range);
  if (range == request.end() || request.method() != http::verb::get ||
      !if_range_holds(request, plan)) {
    return;
  }
  const auto size = plan.body.size();
  const RangeAnswer answer = answer_range(range->value(), size);
  if (answer.status == 416) {
    plan.head.result(416);
    plan.head.set(http::field::content_range, "bytes */" + std::to_string(size));
    plan.body = BodySource::text("");
  } else if (answer.status == 206) {
    plan.head.result(206);
    plan.head.set(http::field::content_range, "bytes " + std::to_string(answer.first) + "-" +
                                                  std::to_string(answer.last) + "/" +
                                                  std::to_string(size));
    plan.body = plan.body.window(answer.first, answer.last - answer.first + 1);
  }
}

}  // namespace

void plan_object(const OriginRequest& request, const RequestTarget& target, ResponsePlan& plan) {
  const auto params = parse_object_params(target);
  if (!params) {
    return bad_request(plan, "size, status (200-599), max_age, last_modified, expires: numbers");
  }
  const std::string interim = text_param(target, "interim");
  if (!interim.empty() && interim != "102" && interim != "103") {
    return bad_request(plan, "interim is 102 or 103");
  }
  if (!interim.empty()) plan.interim = interim == "102" ? 102 : 103;
  const auto count = number_param(target, "interim_count", 1, 64);
  if (!count) return bad_request(plan, "interim_count is 0 to 64");
  plan.interim_count = static_cast<unsigned>(*count);
  auto p = *params;
  std::string seed = variant_seed(request, target);
  // etag_from=F: the request's field F, when present, is the ETag and follows the seed, so one
  // URL can change its representation between requests.
  if (const auto from = text_param(target, "etag_from"); !from.empty()) {
    if (const auto field = request.find(from); field != request.end()) {
      p.etag = quoted_etag(std::string(field->value()));
      seed += "|" + p.etag;
    }
  }
  set_cache_fields(target, p, plan);
  if (text_param(target, "echo_method") == "1") {
    plan.head.set("X-Request-Method", request.method_string());
  }
  plan.head.result(params->status);
  // Preconditions apply only where the response would otherwise be 2xx (RFC 9110 §13.2.1).
  const unsigned conditional =
      params->status / 100 == 2 ? conditional_status(request, p.etag, params->last_modified) : 0;
  if (conditional != 0) {
    plan.head.result(conditional);
    return;
  }
  plan.head.set(http::field::content_type, "application/octet-stream");
  plan.body = BodySource::generated(body_key(target.path, seed), params->size);
  if (params->status == 200 && text_param(target, "ranges") == "1") apply_ranges(request, plan);
}

}  // namespace sumcache::testing
