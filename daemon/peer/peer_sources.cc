#include "daemon/peer/peer_sources.h"

namespace sumcache::daemon {

std::optional<AccessList> peer_sources(const asio::any_io_executor& executor,
                                       const config::ClusterConfig& cluster,
                                       const std::vector<config::PeerConfig>& peers, Logger& log,
                                       std::string_view listener) {
  AccessList list;
  if (!cluster.peer_allow.empty()) {
    if (AccessList::build(cluster.peer_allow, list))
      return std::nullopt;  // the loader checked them
    return list;
  }
  std::vector<std::string> addresses;
  tcp::resolver resolver(executor);
  for (const auto& p : peers) {
    error_code ec;
    const auto results = resolver.resolve(p.host, std::to_string(p.peer_port), ec);
    if (ec || results.empty()) {
      log.warn("peer " + p.id + ": " + p.host + " does not resolve (" + ec.message() + "): the " +
               std::string(listener) + " accepts any source address");
      return std::nullopt;
    }
    for (const auto& r : results) addresses.push_back(r.endpoint().address().to_string());
  }
  if (addresses.empty()) return std::nullopt;  // no peers: nothing to tell apart
  if (AccessList::build(addresses, list)) return std::nullopt;
  return list;
}

}  // namespace sumcache::daemon
