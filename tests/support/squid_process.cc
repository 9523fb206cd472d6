#include "tests/support/squid_process.h"

#include <pwd.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace sumcache::testing {
namespace {

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Run as root, Squid drops to its cache_effective_user (Debian's `proxy`),
// which must own the directory it writes its logs, PID file and cache into.
std::string give_to_squid_user(const std::filesystem::path& dir) {
  if (geteuid() != 0) return {};
  const passwd* pw = getpwnam("proxy");
  if (pw == nullptr) return "no user `proxy` for Squid to run as";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir))
    if (lchown(entry.path().c_str(), pw->pw_uid, pw->pw_gid) != 0) return "chown " + entry.path().string();
  if (chown(dir.c_str(), pw->pw_uid, pw->pw_gid) != 0) return "chown " + dir.string();
  return {};
}

std::string config_text(const SquidOptions& o, const std::filesystem::path& dir) {
  const std::string d = dir.string();
  std::ostringstream c;
  c << "http_port 127.0.0.1:" << o.http_port << "\n"
    << "icp_port " << o.icp_port << "\n"
    << "udp_incoming_address 127.0.0.1\n"
    << "htcp_port 0\n"
    << "snmp_port 0\n"
    << "pinger_enable off\n"
    << "dns_nameservers 127.0.0.1\n"
    << "visible_hostname " << SquidProcess::kHostname << "\n"
    << "pid_filename " << d << "/squid.pid\n"
    << "cache_log " << d << "/cache.log\n"
    << "access_log stdio:" << d << "/access.log squid\n"
    << "cache_store_log none\n"
    << "coredump_dir " << d << "\n"
    << "cache_mem 16 MB\n"
    << "cache_dir ufs " << d << "/cache 32 4 4\n"
    << "digest_rebuild_period " << o.digest_period.count() << " seconds\n"
    << "digest_rewrite_period " << o.digest_period.count() << " seconds\n"
    << "shutdown_lifetime 0 seconds\n"
    << o.access << "\n"
    << "http_access allow localhost\n"
    << "http_access deny all\n"
    << "icp_access allow localhost\n"
    << "icp_access deny all\n"
    << "refresh_pattern . 60 50% 600\n"
    << o.extra << "\n";
  return c.str();
}

}  // namespace

bool SquidProcess::installed() { return access(kSquidProgram, X_OK) == 0; }

std::string SquidProcess::start(const SquidOptions& options, std::chrono::milliseconds timeout) {
  if (options.http_port == 0) return "SquidOptions.http_port is required";
  options_ = options;
  const auto conf = process_.write_file("squid.conf", config_text(options, dir()));
  std::filesystem::create_directories(dir() / "cache");
  if (std::string why = give_to_squid_user(dir()); !why.empty()) return why;
  {
    // squid -z creates the cache dir's layout and exits; a child of our own, waited for.
    DaemonProcess init;
    if (auto ec = init.start(kSquidProgram, {"-z", "-N", "-f", conf.string()}))
      return "squid -z: " + ec.message();
    const auto status = init.stop(0, std::chrono::seconds(20));
    if (!status || status->code != 0) return "squid -z failed: " + init.output(Output::err);
  }
  if (auto ec = process_.start(kSquidProgram, {"-N", "-f", conf.string()}))
    return "squid: " + ec.message();
  if (!process_.wait_for_port(options.http_port, timeout))
    return "squid did not listen on " + std::to_string(options.http_port) + ": " + cache_log() +
           process_.output(Output::err);
  return {};
}

void SquidProcess::stop() {
  if (process_.pid() > 0) process_.stop(SIGTERM, std::chrono::seconds(10));
}

std::string SquidProcess::access_log() const { return read_all(dir() / "access.log"); }
std::string SquidProcess::cache_log() const { return read_all(dir() / "cache.log"); }

}  // namespace sumcache::testing
