#pragma once
// One admin request in, one response out: access, routing, the token, and
// each endpoint's body. The session (admin_session.h) does the I/O.

#include <string>
#include <utility>
#include <vector>

#include "daemon/admin/admin_context.h"
#include "daemon/admin/admin_limits.h"
#include "daemon/net/cidr.h"

namespace sumcache::daemon {

struct AdminRequest {
  std::string method;
  std::string target;
  std::string authorization;
  std::string content_type;
  std::string body;
  Ip6Bytes client{};
  std::string client_text;
};

struct AdminResponse {
  unsigned status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> fields;  // beyond the usual ones
};

// Awaits only for a purge: the peers' acknowledgements, on `executor` (the session's).
awaitable<AdminResponse> handle_admin(AdminContext& context, const AdminRequest& request,
                                      asio::any_io_executor executor);

// A text/plain "<status> <reason>: <why>" response, as the proxy's own errors read.
AdminResponse admin_error(unsigned status, std::string_view why);

}  // namespace sumcache::daemon
