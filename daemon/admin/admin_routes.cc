#include "daemon/admin/admin_routes.h"

#include <array>

namespace sumcache::daemon {
namespace {

struct PathEntry {
  std::string_view path;
  AdminEndpoint endpoint;
  bool changes_state;
};

constexpr std::array<PathEntry, 9> kPaths = {{
    {"/", AdminEndpoint::dashboard, false},
    {"/stats", AdminEndpoint::stats, false},
    {"/metrics", AdminEndpoint::metrics, false},
    {"/peers", AdminEndpoint::peers, false},
    {"/filter", AdminEndpoint::filter, false},
    {"/healthz", AdminEndpoint::healthz, false},
    {"/readyz", AdminEndpoint::readyz, false},
    {"/config", AdminEndpoint::config, false},
    {"/purge", AdminEndpoint::purge, true},
}};

}  // namespace

AdminRoute route_admin(std::string_view method, std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  for (const PathEntry& e : kPaths) {
    if (e.path != path) continue;
    AdminRoute route{200, e.endpoint, e.changes_state ? "POST" : "GET, HEAD", e.changes_state};
    const bool allowed = e.changes_state ? method == "POST" : (method == "GET" || method == "HEAD");
    if (!allowed) route.status = 405;
    return route;
  }
  return {};
}

}  // namespace sumcache::daemon
