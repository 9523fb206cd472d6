#pragma once
// One TLS listener's state shared by every worker that accepts on it: the
// certificates in use (replaced whole by a reload, kept when the new ones
// fail to load) and what its handshakes came to, for /metrics.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "config/tls_config.h"
#include "daemon/tls/server_tls.h"

namespace sumcache::daemon {

enum class HandshakeResult : std::uint8_t { ok, failed, timeout, plain_http };
inline constexpr std::size_t kHandshakeResults = 4;
const char* handshake_result_label(HandshakeResult r);

struct TlsListenerSnapshot {
  std::string listener;  // "127.0.0.1:8443"
  std::array<std::uint64_t, kHandshakeResults> handshakes{};
  struct Expiry {
    std::string certificate;
    std::int64_t not_after;
  };
  std::vector<Expiry> expiries;
};

class TlsListener {
 public:
  // `http2`: ALPN offers h2 here, on every set a reload builds too.
  TlsListener(std::string listener, std::shared_ptr<const ServerTls> tls, bool http2)
      : listener_(std::move(listener)), tls_(std::move(tls)), http2_(http2) {}

  // What a connection accepted now starts its handshake with; it holds the
  // set for its life, so a reload never pulls contexts from under it.
  std::shared_ptr<const ServerTls> current() const {
    std::lock_guard lock(mutex_);
    return tls_;
  }
  // Builds the set from `config` again (the files read anew); on failure the
  // running set stays and `failed` says which file and why.
  bool reload(const config::ServerTlsConfig& config, std::string& failed);

  // Before any connection: the address once bound (port 0 takes the kernel's).
  void set_name(std::string name) { listener_ = std::move(name); }
  void count(HandshakeResult r) {
    handshakes_[static_cast<std::size_t>(r)].fetch_add(1, std::memory_order_relaxed);
  }
  const std::string& name() const { return listener_; }
  TlsListenerSnapshot snapshot() const;

 private:
  std::string listener_;
  mutable std::mutex mutex_;
  std::shared_ptr<const ServerTls> tls_;
  bool http2_;
  std::array<std::atomic<std::uint64_t>, kHandshakeResults> handshakes_{};
};

// What /metrics shows of every TLS listener.
struct TlsStats {
  std::vector<TlsListenerSnapshot> listeners;
  std::uint64_t reloads_ok = 0;
  std::uint64_t reloads_failed = 0;
};

// Every TLS listener of the process (proxy and admin), built at start and
// fixed after it, with what the reloads of their certificates came to.
struct TlsListeners {
  std::vector<std::shared_ptr<TlsListener>> listeners;
  std::atomic<std::uint64_t> reloads_ok{0};
  std::atomic<std::uint64_t> reloads_failed{0};
  TlsStats stats() const;
};

}  // namespace sumcache::daemon
