#pragma once
// SquidProcess: a real Squid (Debian's `squid` package) run by a test, on
// loopback, with a config generated into a temp dir of its own, in the
// foreground (-N: one process, the PID we started), and stopped by that PID.
// Used where an issue names Squid as the other side (docs/interop.md).

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include "tests/support/daemon_process.h"

namespace sumcache::testing {

inline constexpr const char* kSquidProgram = "/usr/sbin/squid";

struct SquidOptions {
  std::uint16_t http_port = 0;  // required: 127.0.0.1:http_port
  std::uint16_t icp_port = 0;   // 0: no ICP socket
  // Digest knobs: Squid rebuilds and rewrites its own digest this often, so a
  // test sees its store in the digest within seconds instead of an hour.
  std::chrono::seconds digest_period{2};
  // Lines appended to the generated squid.conf (cache_peer, icp_access, ...).
  std::string extra;
  // Lines placed before the generated access rules (which end in "deny all"): acl and
  // http_access/icp_access allow lines for senders beyond localhost.
  std::string access;
};

class SquidProcess {
 public:
  // True when Squid is installed (scripts/setup installs it).
  static bool installed();

  // Writes squid.conf, creates the cache dir (squid -z), starts Squid and
  // waits until its HTTP port accepts. Empty on success, else why not.
  std::string start(const SquidOptions& options,
                    std::chrono::milliseconds timeout = std::chrono::seconds(20));
  // SIGTERM (Squid's shutdown_lifetime is 0 here), then the process's own guarantees.
  void stop();

  std::uint16_t http_port() const { return options_.http_port; }
  std::uint16_t icp_port() const { return options_.icp_port; }
  const std::filesystem::path& dir() const { return process_.dir(); }
  // The access log (Squid's native format) and cache.log as written so far.
  std::string access_log() const;
  std::string cache_log() const;
  // The visible_hostname Squid names itself by in X-Cache and Via.
  static constexpr const char* kHostname = "squid-under-test";

 private:
  SquidOptions options_;
  DaemonProcess process_;
};

}  // namespace sumcache::testing
