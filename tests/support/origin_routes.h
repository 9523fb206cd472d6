#pragma once
// What the test origin answers, decided from the request alone: a pure function
// from request and clock to a ResponsePlan, which the session then carries out.
// Internal to the origin; test_origin.h documents the behaviour for tests.

#include <boost/beast/http/empty_body.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "tests/support/body_source.h"
#include "tests/support/http_date.h"
#include "tests/support/request_target.h"

namespace sumcache::testing {

namespace http = boost::beast::http;

using OriginRequest = http::request<http::string_body>;

// Bodies are streamed, never held: this cap only stops a typo in a query from
// keeping a connection busy for hours.
inline constexpr std::uint64_t kMaxBodyBytes = 1ULL << 30;

// The Link field of the 103 Early Hints response (RFC 8297).
inline constexpr std::string_view kEarlyHintsLink = "</style.css>; rel=preload; as=style";
// A field only the 103 carries, so a test can tell that interim fields stayed out of the
// final response (RFC 9110 §15.2).
inline constexpr std::string_view kEarlyHintsOnlyField = "X-Early-Hint";

struct ResponsePlan {
  http::response<http::empty_body> head;  // status and fields, framing included
  BodySource body;
  bool send_body = true;  // false for HEAD and for statuses that have no body
  unsigned interim = 0;   // 102 or 103: that interim response goes before the head
  unsigned interim_count = 1;  // how many times it goes
  bool close_without_response = false;
  std::chrono::milliseconds head_delay{0};   // before the response head
  std::chrono::milliseconds piece_delay{0};  // before each piece of the body
  std::size_t piece_bytes = 16 * 1024;       // body write size, and chunk size when chunked
};

ResponsePlan plan_response(const OriginRequest& request, SysTime now);

// For the routes: /obj/... (object_route.cc).
void plan_object(const OriginRequest& request, const RequestTarget& target, ResponsePlan& plan);

// The decimal value of query parameter `name`, `fallback` when it is absent, nullopt when it
// is not a number or exceeds `cap`.
std::optional<std::uint64_t> number_param(const RequestTarget& target, std::string_view name,
                                          std::uint64_t fallback, std::uint64_t cap);

// The decoded value of query parameter `name`, empty when it is absent.
std::string text_param(const RequestTarget& target, std::string_view name);

// Makes `plan` a 400 whose body says why.
void bad_request(ResponsePlan& plan, std::string_view why);

}  // namespace sumcache::testing
