#include "daemon/admin/metrics_tls.h"

namespace sumcache::daemon {

void write_tls_metrics(PrometheusWriter& w, const TlsStats& stats) {
  w.family("sumcache_tls_handshakes_total", "counter",
           "Connections to TLS listeners by how they began: a handshake that succeeded, failed "
           "or timed out, or plain HTTP sent to the port (answered 400).");
  for (const auto& l : stats.listeners) {
    for (std::size_t i = 0; i < kHandshakeResults; ++i) {
      w.sample("sumcache_tls_handshakes_total",
               {{"listener", l.listener},
                {"result", handshake_result_label(static_cast<HandshakeResult>(i))}},
               l.handshakes[i]);
    }
  }
  w.family("sumcache_tls_certificate_expiry_timestamp_seconds", "gauge",
           "When each certificate a TLS listener serves expires (its notAfter), in Unix seconds.");
  for (const auto& l : stats.listeners) {
    for (const auto& e : l.expiries) {
      w.sample("sumcache_tls_certificate_expiry_timestamp_seconds",
               {{"listener", l.listener}, {"certificate", e.certificate}},
               static_cast<double>(e.not_after));
    }
  }
  w.family("sumcache_tls_reloads_total", "counter",
           "Reloads of a TLS listener's certificates on SIGHUP; a failed one kept the certificates "
           "loaded before.");
  w.sample("sumcache_tls_reloads_total", {{"result", "ok"}}, stats.reloads_ok);
  w.sample("sumcache_tls_reloads_total", {{"result", "failed"}}, stats.reloads_failed);
}

}  // namespace sumcache::daemon
