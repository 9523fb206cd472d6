#include "tests/support/origin_routes.h"

#include <charconv>
#include <string>

#include "tests/support/echo_format.h"
#include "tests/support/header_list.h"

namespace sumcache::testing {

namespace {

constexpr std::uint64_t kMaxDelayMs = 60'000;
constexpr std::uint64_t kMaxPieceBytes = 1 << 20;

void plan_text(ResponsePlan& plan, unsigned status, std::string text) {
  plan.head.result(status);
  plan.head.set(http::field::content_type, "text/plain");
  plan.body = BodySource::text(std::move(text));
}

void plan_echo(const OriginRequest& request, ResponsePlan& plan) {
  EchoedRequest echoed;
  echoed.method = std::string(request.method_string());
  echoed.target = std::string(request.target());
  echoed.version = request.version() == 10 ? "HTTP/1.0" : "HTTP/1.1";
  for (const auto& field : request) {
    echoed.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  echoed.body = request.body();
  plan.head.set(http::field::content_type, "application/json");
  plan.body = BodySource::text(format_echo(echoed));
}

void plan_status(std::string_view code_text, ResponsePlan& plan) {
  unsigned code = 0;
  const auto [end, ec] = std::from_chars(code_text.begin(), code_text.end(), code);
  if (ec != std::errc{} || end != code_text.end() || code < 200 || code > 599) {
    return bad_request(plan, "/status/<code> takes a code from 200 to 599");
  }
  plan_text(plan, code, "status " + std::string(code_text) + "\n");
}

void plan_slow_body(const RequestTarget& target, ResponsePlan& plan) {
  const auto size = number_param(target, "size", 1024, kMaxBodyBytes);
  const auto delay = number_param(target, "chunk_delay_ms", 50, kMaxDelayMs);
  const auto piece = number_param(target, "chunk_size", 256, kMaxPieceBytes);
  if (!size || !delay || !piece || *piece == 0) {
    return bad_request(plan, "size, chunk_delay_ms and chunk_size (> 0) must be numbers");
  }
  plan.head.set(http::field::content_type, "application/octet-stream");
  plan.body = BodySource::generated(body_key(target.path, text_param(target, "body_seed")), *size);
  plan.piece_delay = std::chrono::milliseconds(*delay);
  plan.piece_bytes = *piece;
}

void route(const OriginRequest& request, const RequestTarget& target, ResponsePlan& plan) {
  const std::string_view path = target.path;
  if (path.starts_with("/obj/")) return plan_object(request, target, plan);
  if (path == "/echo" || path == "/100-continue") return plan_echo(request, plan);
  if (path.starts_with("/status/")) return plan_status(path.substr(8), plan);
  if (path == "/redirect") {
    plan_text(plan, 301, "moved\n");
    plan.head.set(http::field::location, "/");  // replaced by ?location= in apply_common
    return;
  }
  if (path == "/close") {
    plan.close_without_response = true;
    return;
  }
  if (path == "/slow-body") return plan_slow_body(target, plan);
  if (path == "/early-hints") {
    plan.interim = 103;
    return plan_text(plan, 200, "early hints sent\n");
  }
  plan_text(plan, 404, "no such route\n");
}

// Content-Length, or chunked; nothing for statuses that never have a body (RFC 9110 §6.4.1).
void frame(const OriginRequest& request, bool chunked, ResponsePlan& plan) {
  const unsigned status = plan.head.result_int();
  if (status / 100 == 1 || status == 204 || status == 304) {
    plan.body = {};
    plan.send_body = false;
    return;
  }
  if (chunked) {
    plan.head.chunked(true);
  } else {
    plan.head.content_length(plan.body.size());
  }
  // A HEAD response carries the GET response's framing, without the body (RFC 9110 §9.3.2).
  plan.send_body = request.method() != http::verb::head;
}

// What every route takes: delay_ms, chunked, location, content_location (either may be
// "self": the request target as received), no_date; Date and Server.
void apply_common(const OriginRequest& request, const RequestTarget& target, SysTime now,
                  ResponsePlan& plan) {
  const auto delay = number_param(target, "delay_ms", 0, kMaxDelayMs);
  const auto chunked = number_param(target, "chunked", 0, 1);
  if (!delay || !chunked) {
    bad_request(plan, "delay_ms and chunked (0 or 1) must be numbers");
  } else {
    plan.head_delay = std::chrono::milliseconds(*delay);
  }
  for (const auto& [param, field] :
       {std::pair{"location", http::field::location},
        std::pair{"content_location", http::field::content_location}}) {
    const auto it = target.params.find(param);
    if (it == target.params.end()) continue;
    // "self": the request's own target, which a query cannot spell (it holds the query).
    plan.head.set(field, it->second == "self" ? std::string(request.target()) : it->second);
  }
  // no_date=1: an origin without a clock (RFC 9110 §6.6.1), which sends no Date.
  if (text_param(target, "no_date") != "1") plan.head.set(http::field::date, format_http_date(now));
  plan.head.set(http::field::server, "sumcache-test-origin");
  plan.head.keep_alive(request.keep_alive());
  frame(request, chunked.value_or(0) == 1, plan);
}

}  // namespace

std::optional<std::uint64_t> number_param(const RequestTarget& target, std::string_view name,
                                          std::uint64_t fallback, std::uint64_t cap) {
  const auto it = target.params.find(name);
  if (it == target.params.end()) return fallback;
  const std::string& text = it->second;
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value > cap) return std::nullopt;
  return value;
}

std::string text_param(const RequestTarget& target, std::string_view name) {
  const auto it = target.params.find(name);
  return it == target.params.end() ? std::string() : it->second;
}

void bad_request(ResponsePlan& plan, std::string_view why) {
  plan = ResponsePlan{};
  plan.head.version(11);
  plan_text(plan, 400, std::string(why) + "\n");
}

ResponsePlan plan_response(const OriginRequest& request, SysTime now) {
  const RequestTarget target = parse_target(request.target());
  ResponsePlan plan;
  plan.head.version(11);
  plan.head.result(http::status::ok);
  route(request, target, plan);
  if (!plan.close_without_response) apply_common(request, target, now, plan);
  return plan;
}

}  // namespace sumcache::testing
