#pragma once
// Carries out the destination policy (daemon/net/destination_policy.h) on
// every upstream connect: the upstream pool asks it about each resolved
// endpoint before connecting. A refusal is counted in /metrics, logged once a
// second at most (with the number held back), and comes back as an error of
// its own category, which the proxy answers with 403 and the reason.

#include "daemon/exchange/proxy_context.h"

namespace sumcache::daemon {

// The values index ProxyStats::refused_destinations (value - 1).
enum class DestinationErrc { own_listener = 1, denied, peer_listener };

const boost::system::error_category& destination_category() noexcept;
inline error_code make_error_code(DestinationErrc e) noexcept {
  return {static_cast<int>(e), destination_category()};
}
inline bool is_destination_refusal(const error_code& ec) {
  return ec.category() == destination_category();
}

// The check a worker's pool runs; judges by the settings current at each call.
UpstreamPool::EndpointCheck destination_check(WorkerContext& worker);

}  // namespace sumcache::daemon
