#pragma once
// RedisProcess: a real redis-server (Debian's `redis-server` package) run by a
// test, on a free 127.0.0.1 port, its data and logs in temp dirs of its own,
// without persistence (--save '' --appendonly no) unless asked, and stopped by
// the PID it started (SIGTERM, then SIGKILL after a bound). restart() brings it
// back on the same port, for the tests of a Redis that goes away. cli() runs
// redis-cli against it, for a test that places or reads keys by hand.

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/daemon_process.h"
#include "tests/support/temp_dir.h"

namespace sumcache::testing {

inline constexpr const char* kRedisServerProgram = "/usr/bin/redis-server";
inline constexpr const char* kRedisCliProgram = "/usr/bin/redis-cli";

struct RedisProcessOptions {
  std::string requirepass{};  // non-empty: the default user needs this password
  // Non-empty: an ACL user with this password and every right (AUTH user pass).
  std::string acl_user{};
  std::string acl_password{};
  // Non-empty: TLS only (no plain port), with this certificate and key; clients
  // are not asked for certificates. tls_ca is what cli() verifies the server by.
  std::filesystem::path tls_cert{};
  std::filesystem::path tls_key{};
  std::filesystem::path tls_ca{};
  bool persistence = false;        // false: --save '' --appendonly no
  std::vector<std::string> extra{};  // more arguments, e.g. {"--maxmemory", "10mb"}
};

class RedisProcess {
 public:
  // True when redis-server and redis-cli are installed (scripts/setup installs them).
  static bool installed();

  RedisProcess();
  ~RedisProcess();
  RedisProcess(const RedisProcess&) = delete;
  RedisProcess& operator=(const RedisProcess&) = delete;

  // Picks a free port, starts redis-server and waits for "Ready to accept
  // connections". Empty on success, else why not.
  std::string start(const RedisProcessOptions& options = {},
                    std::chrono::milliseconds timeout = std::chrono::seconds(10));
  // SIGTERM and wait (SIGKILL after 10 s). The port stays this object's.
  void stop();
  // Stops it if running, then starts it again on the same port with the same options.
  std::string restart(std::chrono::milliseconds timeout = std::chrono::seconds(10));
  bool running();

  std::uint16_t port() const { return port_; }
  const std::filesystem::path& data_dir() const { return data_.path(); }
  // What redis-server has logged so far (this run).
  std::string log() const;

  // Runs `redis-cli -h 127.0.0.1 -p PORT [auth] [tls] args...` and returns its
  // standard output (raw: values as sent, one per line). Waits at most `timeout`.
  std::string cli(const std::vector<std::string>& args,
                  std::chrono::milliseconds timeout = std::chrono::seconds(10)) const;

 private:
  std::string launch(std::chrono::milliseconds timeout);

  RedisProcessOptions options_;
  std::uint16_t port_ = 0;
  TempDir data_;
  std::unique_ptr<DaemonProcess> process_;
};

}  // namespace sumcache::testing
