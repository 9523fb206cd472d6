#include "daemon/admin/admin_routes.h"

#include <array>

namespace sumcache::daemon {
namespace {

struct PathEntry {
  std::string_view path;
  AdminEndpoint endpoint;  // for GET and HEAD
  bool readable;
  std::string_view write_method;  // the state-changing method; empty: none
  AdminEndpoint write_endpoint;
  std::string_view allow;
};

using E = AdminEndpoint;
constexpr std::array<PathEntry, 10> kPaths = {{
    {"/", E::dashboard, true, {}, E::dashboard, "GET, HEAD"},
    {"/stats", E::stats, true, {}, E::stats, "GET, HEAD"},
    {"/metrics", E::metrics, true, {}, E::metrics, "GET, HEAD"},
    {"/peers", E::peers, true, "POST", E::peer_add, "GET, HEAD, POST"},
    {"/filter", E::filter, true, {}, E::filter, "GET, HEAD"},
    {"/healthz", E::healthz, true, {}, E::healthz, "GET, HEAD"},
    {"/readyz", E::readyz, true, {}, E::readyz, "GET, HEAD"},
    {"/config", E::config, true, {}, E::config, "GET, HEAD"},
    {"/purge", E::purge, false, "POST", E::purge, "POST"},
    {"/squid-digest", E::squid_digest_rebuild, false, "POST", E::squid_digest_rebuild, "POST"},
}};

constexpr std::string_view kPeerPrefix = "/peers/";

}  // namespace

AdminRoute route_admin(std::string_view method, std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  if (path.starts_with(kPeerPrefix)) {
    // DELETE /peers/ID: one path segment after the prefix.
    const std::string_view id = path.substr(kPeerPrefix.size());
    if (id.empty() || id.find('/') != std::string_view::npos) return {};
    AdminRoute route{200, E::peer_remove, "DELETE", true, id};
    if (method != "DELETE") route.status = 405;
    return route;
  }
  for (const PathEntry& e : kPaths) {
    if (e.path != path) continue;
    AdminRoute route{405, e.endpoint, e.allow, false, {}};
    if (e.readable && (method == "GET" || method == "HEAD")) {
      route.status = 200;
    } else if (!e.write_method.empty() && method == e.write_method) {
      route = {200, e.write_endpoint, e.allow, true, {}};
    }
    return route;
  }
  return {};
}

}  // namespace sumcache::daemon
