#include "daemon/exchange/destination_guard.h"

#include "daemon/net/address_bytes.h"

namespace sumcache::daemon {
namespace {

// Boost's error_category has a public non-virtual destructor; a category is
// a static object never deleted through its base, as Asio's own are.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class DestinationCategory : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "destination"; }
  std::string message(int value) const override {
    switch (static_cast<DestinationErrc>(value)) {
      case DestinationErrc::own_listener:
        return "destination is this proxy's own listener";
      case DestinationErrc::denied:
        return "destination is in access.deny_destinations";
      case DestinationErrc::peer_listener:
        return "destination is a peer's private listener (peer, object, admin or ICP port)";
    }
    return "destination refused";
  }
};
#pragma GCC diagnostic pop

void log_refusal(ProxyShared& shared, const Origin& origin, const tcp::endpoint& endpoint,
                 DestinationErrc why) {
  const auto held = shared.refused_destination_log.admit(LogLimiter::Clock::now());
  if (!held) return;
  std::string line = "refused upstream connect to " + origin.pool_key() + " (" +
                     endpoint.address().to_string() + " port " + std::to_string(endpoint.port()) +
                     "): " + make_error_code(why).message();
  if (*held > 0) line += " (" + std::to_string(*held) + " more refused since the last line)";
  shared.log.warn(line);
}

}  // namespace

const boost::system::error_category& destination_category() noexcept {
  static const DestinationCategory category;
  return category;
}

UpstreamPool::EndpointCheck destination_check(WorkerContext& worker) {
  return [&worker](const Origin& origin, const tcp::endpoint& endpoint) -> error_code {
    ProxyShared& shared = worker.shared;
    const auto settings = shared.settings.get();
    // This node's own object requests go to its peers' object listeners;
    // anything a client asked for is kept off every private listener.
    const PeerListeners* peers = origin.peer ? nullptr : &settings->peer_listeners;
    const auto verdict =
        check_destination(ip6_bytes(endpoint.address()), endpoint.port(), settings->own_listeners,
                          peers, settings->deny_destinations);
    if (verdict == DestinationVerdict::allowed) return {};
    const auto why = verdict == DestinationVerdict::own_listener    ? DestinationErrc::own_listener
                     : verdict == DestinationVerdict::peer_listener ? DestinationErrc::peer_listener
                                                                    : DestinationErrc::denied;
    worker.stats.refused_destinations[static_cast<std::size_t>(why) - 1].fetch_add(
        1, std::memory_order_relaxed);
    log_refusal(shared, origin, endpoint, why);
    return make_error_code(why);
  };
}

}  // namespace sumcache::daemon
