// Requests to the admin listener as daemon/admin/admin_session.cc reads them: a
// request_parser<string_body> with the admin limits (admin_limits.h), requests
// one after another while each is keep-alive; each through the pure parts of
// handle_admin (admin_handlers.cc): the route and method rules, the bearer token
// check for the path that changes state, and the /purge body.
// Property: only a request that carries the configured token passes the check.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "daemon/admin/admin_limits.h"
#include "daemon/admin/admin_routes.h"
#include "daemon/admin/token_check.h"
#include "daemon/session/purge_request.h"
#include "tests/fuzz/beast_feed.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache::daemon;
namespace fuzz = sumcache::fuzz;
namespace http = boost::beast::http;

namespace {

constexpr int kMaxRequests = 8;
constexpr std::string_view kToken = "fuzz-admin-token";

void handle(const http::request<http::string_body>& req) {
  const AdminRoute route = route_admin(req.method_string(), req.target());
  if (route.status != 200) return;
  if (route.changes_state) {
    const auto authorization = req[http::field::authorization];
    const TokenCheck check = check_bearer_token(authorization, kToken);
    if (check == TokenCheck::ok) {
      SUMCACHE_FUZZ_CHECK(authorization.ends_with(kToken));
    }
    SUMCACHE_FUZZ_CHECK(check_bearer_token(authorization, "") == TokenCheck::not_configured);
  }
  if (route.endpoint == AdminEndpoint::purge) {
    std::string why;
    static_cast<void>(parse_purge_body(req[http::field::content_type], req.body(), why));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  for (int i = 0; i < kMaxRequests && !input.empty(); ++i) {
    http::request_parser<http::string_body> parser;
    parser.header_limit(kAdminMaxHeaderBytes);
    parser.body_limit(kAdminMaxBodyBytes);
    if (fuzz::read_message(parser, input)) return 0;  // 4xx and close, or the client left
    SUMCACHE_FUZZ_CHECK(parser.get().body().size() <= kAdminMaxBodyBytes);
    handle(parser.get());
    if (!parser.get().keep_alive()) return 0;
  }
  return 0;
}
