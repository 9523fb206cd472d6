#pragma once
// Which admin endpoint a request line names, and what the method rules say:
// a pure decision, so the 404/405 rules are tested without sockets. Reads
// take GET and HEAD; the state-changing ones, POST /purge, POST /peers,
// DELETE /peers/ID and POST /squid-digest (docs/admin.md), need the bearer token.

#include <string_view>

namespace sumcache::daemon {

enum class AdminEndpoint {
  dashboard,
  stats,
  metrics,
  peers,
  filter,
  healthz,
  readyz,
  config,
  purge,
  peer_add,              // POST /peers
  peer_remove,           // DELETE /peers/ID
  squid_digest_rebuild,  // POST /squid-digest
};

struct AdminRoute {
  unsigned status = 404;  // 200: serve `endpoint`; 404 unknown path; 405 wrong method
  AdminEndpoint endpoint = AdminEndpoint::dashboard;
  std::string_view allow;      // the Allow field for a 405 (RFC 9110 §15.5.6)
  bool changes_state = false;  // needs the bearer token
  std::string_view peer_id;    // peer_remove: the ID of /peers/ID, as written
};

// `target`: the request-target; its query, if any, is ignored.
AdminRoute route_admin(std::string_view method, std::string_view target);

}  // namespace sumcache::daemon
