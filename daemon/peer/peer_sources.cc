#include "daemon/peer/peer_sources.h"

#include <tuple>

namespace sumcache::daemon {
using namespace asio::experimental::awaitable_operators;
}

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
  // Discovery: a node not found yet must reach the listener to be found.
  if (!cluster.discovery.name.empty()) return std::nullopt;
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

awaitable<std::optional<AccessList>> resolve_peer_sources(asio::any_io_executor executor,
                                                          config::ClusterConfig cluster,
                                                          std::vector<config::PeerConfig> peers,
                                                          Logger& log, std::string listener,
                                                          std::chrono::milliseconds timeout) {
  AccessList list;
  if (!cluster.peer_allow.empty()) {
    if (AccessList::build(cluster.peer_allow, list)) co_return std::nullopt;
    co_return list;
  }
  if (!cluster.discovery.name.empty()) co_return std::nullopt;
  std::vector<std::string> addresses;
  for (const auto& p : peers) {
    error_code ec;
    if (const auto literal = asio::ip::make_address(p.host, ec); !ec) {
      addresses.push_back(literal.to_string());
      continue;
    }
    tcp::resolver resolver(executor);
    asio::steady_timer timer(executor, timeout);
    auto outcome =
        co_await (resolver.async_resolve(p.host, std::to_string(p.peer_port), use_nothrow) ||
                  timer.async_wait(use_nothrow));
    tcp::resolver::results_type results;
    if (outcome.index() == 1) {
      ec = asio::error::timed_out;
    } else {
      std::tie(ec, results) = std::get<0>(std::move(outcome));
    }
    if (ec || results.empty()) {
      log.warn("peer " + p.id + ": " + p.host + " does not resolve (" + ec.message() + "): the " +
               listener + " accept any source address");
      co_return std::nullopt;
    }
    for (const auto& r : results) addresses.push_back(r.endpoint().address().to_string());
  }
  if (addresses.empty()) co_return std::nullopt;
  if (AccessList::build(addresses, list)) co_return std::nullopt;
  co_return list;
}

}  // namespace sumcache::daemon
