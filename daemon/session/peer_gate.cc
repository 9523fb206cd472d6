#include "daemon/session/peer_gate.h"

#include <vector>

#include "daemon/cache/cache_service.h"
#include "daemon/exchange/forward_flow.h"
#include "daemon/peer/peer_service.h"
#include "protocol/peer_auth.h"

namespace sumcache::daemon {
namespace {

std::vector<std::string_view> values_of(const beast::http::request_header<>& req,
                                        std::string_view name) {
  std::vector<std::string_view> values;
  for (auto [it, end] = req.equal_range(name); it != end; ++it) values.push_back(it->value());
  return values;
}

}  // namespace

PeerRequestCheck check_peer_headers(const Settings& settings,
                                    const beast::http::request_header<>& req,
                                    const PeerService* peers) {
  // Most requests carry neither field: no allocation for them.
  if (req.find(kPeerRequestHeader) == req.end() &&
      req.find(protocol::kPeerAuthHeader) == req.end() &&
      req.find(protocol::kOwnerFetchHeader) == req.end()) {
    return {};
  }
  const auto markers = values_of(req, kPeerRequestHeader);
  const auto auths = values_of(req, protocol::kPeerAuthHeader);
  const auto owner_marks = values_of(req, protocol::kOwnerFetchHeader);
  const config::Config& config = settings.config;
  // The peers now (live membership), or the config's without a cluster.
  const auto peer_secret = [&config, peers](std::string_view id) -> std::optional<std::string> {
    if (peers != nullptr) {
      if (peers->is_peer(id)) return config.cluster.secret;
      return std::nullopt;
    }
    for (const auto& peer : config.peers) {
      if (peer.id == id) return config.cluster.secret;
    }
    return std::nullopt;
  };
  const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  return check_peer_request({req.method_string(), req.target(), markers, auths, now, owner_marks},
                            config.cluster.secret, peer_secret);
}

awaitable<unsigned> refuse_peer_request(WorkerContext& worker, const Settings& settings,
                                        ClientExchange& client, const PeerRequestCheck& check,
                                        unsigned version) {
  ProxyShared& shared = worker.shared;
  const auto index = static_cast<std::size_t>(check.reason.value()) - 1;
  if (index < worker.stats.peer_auth_refused.size()) {
    worker.stats.peer_auth_refused[index].fetch_add(1, std::memory_order_relaxed);
  }
  if (shared.log.enabled(LogLevel::warn)) {
    if (const auto held_back = shared.peer_auth_log.admit(LogLimiter::Clock::now())) {
      std::string line = "peer request from " + client.address_text() + " claiming node " +
                         check.node + " refused: " + check.reason.message();
      if (*held_back > 0) line += " (" + std::to_string(*held_back) + " similar lines held back)";
      shared.log.warn(line);
    }
  }
  co_return co_await send_error(client, settings, beast::http::status::forbidden,
                                "peer request refused: " + check.reason.message(), version);
}

}  // namespace sumcache::daemon
