// Startup fails fast on a file the config names that cannot be used (docs/style.md, "Error
// policy"): the daemon exits 1 at once with a line naming the field, rather than start and
// fail every request that needs the file.

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/daemon_process.h"
#include "tests/support/ports.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

struct Outcome {
  std::optional<ExitStatus> exit;
  std::string log;
};

// Runs sumcached on `config` (written into its own directory) until it exits, 20 s at most.
Outcome run_until_exit(const std::string& config,
                       const std::vector<std::pair<std::string, std::string>>& files = {}) {
  DaemonProcess daemon;
  for (const auto& [name, content] : files) daemon.write_file(name, content);
  const auto path = daemon.write_file("sumcache.json", config);
  Outcome out;
  if (daemon.start(SUMCACHED_PATH, {"--config", path.string()})) return out;
  out.exit = daemon.stop(0, 20s);
  out.log = daemon.output(Output::err);
  return out;
}

std::string reverse_config(const std::string& ca_file) {
  return R"({"mode": "reverse",
    "reverse": {"origin": "https://127.0.0.1:)" +
         std::to_string(free_port()) + R"(", "tls": {"ca_file": ")" + ca_file + R"("}},
    "listen": [{"address": "127.0.0.1", "port": 0}],
    "admin": {"enabled": false},
    "cache": {"disk": {"enabled": false}},
    "log": {"access_log": ""}})";
}

TEST(StartupErrors, AReverseTlsCaFileThatDoesNotExistStopsStartupNamingTheField) {
  const Outcome out = run_until_exit(reverse_config("/nonexistent/sumcache-test-ca.pem"));
  ASSERT_TRUE(out.exit) << "still running:\n" << out.log;
  EXPECT_EQ(out.exit->code, 1) << out.log;
  EXPECT_NE(out.log.find("reverse.tls.ca_file /nonexistent/sumcache-test-ca.pem"),
            std::string::npos)
      << out.log;
  EXPECT_EQ(out.log.find("proxy listening"), std::string::npos) << out.log;
}

TEST(StartupErrors, AReverseTlsCaFileWithNoCertificateStopsStartup) {
  TempDir dir;
  const auto ca = dir.path() / "not-a-ca.pem";
  std::ofstream(ca) << "this is not a certificate\n";
  const Outcome out = run_until_exit(reverse_config(ca.string()));
  ASSERT_TRUE(out.exit) << "still running:\n" << out.log;
  EXPECT_EQ(out.exit->code, 1) << out.log;
  EXPECT_NE(out.log.find("reverse.tls.ca_file"), std::string::npos) << out.log;
}

TEST(StartupErrors, ADiscoveryHostsFileThatCannotBeReadStopsStartupNamingTheField) {
  const std::string config = R"({"node": {"id": "node-a"}, "mode": "forward",
    "listen": [{"address": "127.0.0.1", "port": 0}],
    "admin": {"enabled": false},
    "cache": {"disk": {"enabled": false}},
    "log": {"access_log": ""},
    "cluster": {"sharing": "summary", "secret": "cluster-test-secret-0123456789",
                "peer_listen": {"address": "127.0.0.1", "port": )" +
                             std::to_string(free_port()) + R"(},
                "discovery": {"name": "sumcache-peers.test",
                              "hosts_file": "/nonexistent/sumcache-test-hosts"}},
    "peers": [{"id": "node-b", "host": "127.0.0.1", "http_port": )" +
                             std::to_string(free_port()) + R"(, "peer_port": )" +
                             std::to_string(free_port()) + R"(}]})";
  const Outcome out = run_until_exit(config);
  ASSERT_TRUE(out.exit) << "still running:\n" << out.log;
  EXPECT_EQ(out.exit->code, 1) << out.log;
  EXPECT_NE(out.log.find("cluster.discovery.hosts_file /nonexistent/sumcache-test-hosts"),
            std::string::npos)
      << out.log;
}

}  // namespace
}  // namespace sumcache::testing
