#include "daemon/peer/peer_sources.h"

#include "daemon/net/resolve_addresses.h"

namespace sumcache::daemon {

namespace {

void note_unresolved(Logger& log, const config::PeerConfig& p, const error_code& ec,
                     std::string_view listener) {
  log.warn("peer " + p.id + ": " + p.host + " does not resolve (" + ec.message() + "): the " +
           std::string(listener) + " accepts any source address");
}

// The list when it does not depend on resolving the peers' names: nullopt
// inside means any source, nullopt outside means "resolve them".
std::optional<std::optional<AccessList>> fixed_sources(const config::ClusterConfig& cluster) {
  if (!cluster.peer_allow.empty()) {
    AccessList list;
    if (AccessList::build(cluster.peer_allow, list)) {
      return std::optional<AccessList>();  // the loader checked them
    }
    return std::optional<AccessList>(std::move(list));
  }
  // Discovery: a node not found yet must reach the listener to be found.
  if (!cluster.discovery.name.empty()) return std::optional<AccessList>();
  return std::nullopt;
}

std::optional<AccessList> from_addresses(const std::vector<std::string>& addresses) {
  AccessList list;
  if (addresses.empty()) return std::nullopt;  // no peers: nothing to tell apart
  if (AccessList::build(addresses, list)) return std::nullopt;
  return list;
}

void add_addresses(const ResolvedAddresses& resolved, std::vector<std::string>& out) {
  for (const auto& a : resolved.addresses) out.push_back(a.to_string());
}

}  // namespace

std::optional<AccessList> peer_sources(const asio::any_io_executor& executor,
                                       const config::ClusterConfig& cluster,
                                       const std::vector<config::PeerConfig>& peers, Logger& log,
                                       std::string_view listener) {
  if (auto fixed = fixed_sources(cluster)) return std::move(*fixed);
  std::vector<std::string> addresses;
  for (const auto& p : peers) {
    const ResolvedAddresses resolved = resolve_addresses(executor, p.host);
    if (resolved.ec) {
      note_unresolved(log, p, resolved.ec, listener);
      return std::nullopt;
    }
    add_addresses(resolved, addresses);
  }
  return from_addresses(addresses);
}

awaitable<std::optional<AccessList>> resolve_peer_sources(asio::any_io_executor executor,
                                                          config::ClusterConfig cluster,
                                                          std::vector<config::PeerConfig> peers,
                                                          Logger& log, std::string listener,
                                                          std::chrono::milliseconds timeout) {
  if (auto fixed = fixed_sources(cluster)) co_return std::move(*fixed);
  std::vector<std::string> addresses;
  for (const auto& p : peers) {
    const ResolvedAddresses resolved = co_await resolve_addresses_within(executor, p.host, timeout);
    if (resolved.ec) {
      note_unresolved(log, p, resolved.ec, listener);
      co_return std::nullopt;
    }
    add_addresses(resolved, addresses);
  }
  co_return from_addresses(addresses);
}

}  // namespace sumcache::daemon
