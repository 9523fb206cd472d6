#include "daemon/tls/tls_listener.h"

namespace sumcache::daemon {

const char* handshake_result_label(HandshakeResult r) {
  switch (r) {
    case HandshakeResult::ok:
      return "ok";
    case HandshakeResult::failed:
      return "failed";
    case HandshakeResult::timeout:
      return "timeout";
    case HandshakeResult::plain_http:
      return "plain_http";
  }
  return "failed";
}

bool TlsListener::reload(const config::ServerTlsConfig& config, std::string& failed) {
  auto next = ServerTls::build(config, http2_, failed);
  if (!next) return false;
  std::lock_guard lock(mutex_);
  tls_ = std::move(next);
  return true;
}

TlsListenerSnapshot TlsListener::snapshot() const {
  TlsListenerSnapshot s;
  s.listener = listener_;
  for (std::size_t i = 0; i < kHandshakeResults; ++i) {
    s.handshakes[i] = handshakes_[i].load(std::memory_order_relaxed);
  }
  for (const auto& c : current()->certificates()) {
    s.expiries.push_back({c.cert_file, c.facts.not_after});
  }
  return s;
}

TlsStats TlsListeners::stats() const {
  TlsStats s;
  for (const auto& l : listeners) s.listeners.push_back(l->snapshot());
  s.reloads_ok = reloads_ok.load(std::memory_order_relaxed);
  s.reloads_failed = reloads_failed.load(std::memory_order_relaxed);
  return s;
}

}  // namespace sumcache::daemon
