// Running sumcached as an operator does: the command line, config errors,
// SIGHUP reload, SIGUSR1 log reopening.
#include <csignal>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/daemon/integration/proxy_fixture.h"

namespace sumcache::testing {
namespace {

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The access log line follows the response's last byte: wait for it, bounded.
bool file_gets(const std::filesystem::path& path, const std::string& needle) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (read_file(path).find(needle) == std::string::npos) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

TEST(SumcachedCommandLine, CheckConfigAcceptsAValidFileAndNamesTheFieldOfABadOne) {
  TempDir dir;
  std::ofstream(dir.path() / "good.json") << R"({"mode": "forward"})";
  std::ofstream(dir.path() / "bad.json") << R"({"limits": {"client_idle_timeout_ms": 0}})";
  DaemonProcess good;
  ASSERT_FALSE(good.start(SUMCACHED_PATH, {"--check-config", (dir.path() / "good.json").string()}));
  auto good_exit = good.stop(0, std::chrono::seconds(10));
  ASSERT_TRUE(good_exit);
  EXPECT_EQ(good_exit->code, 0) << good.output(Output::err);
  DaemonProcess bad;
  ASSERT_FALSE(bad.start(SUMCACHED_PATH, {"--check-config", (dir.path() / "bad.json").string()}));
  auto bad_exit = bad.stop(0, std::chrono::seconds(10));
  ASSERT_TRUE(bad_exit);
  EXPECT_EQ(bad_exit->code, 2);
  EXPECT_NE(bad.output(Output::err).find("$.limits.client_idle_timeout_ms"), std::string::npos)
      << bad.output(Output::err);
}

TEST(SumcachedCommandLine, AnUnusableListenAddressStopsStartup) {
  TempDir dir;
  // TEST-NET-1 is never assigned to this machine: bind fails, and startup must stop.
  std::ofstream(dir.path() / "c.json") << R"({"listen": [{"address": "192.0.2.1", "port": 0}],
      "admin": {"enabled": false}, "cache": {"disk": {"enabled": false}}})";
  DaemonProcess d;
  ASSERT_FALSE(d.start(SUMCACHED_PATH, {"--config", (dir.path() / "c.json").string()}));
  auto exit = d.stop(0, std::chrono::seconds(15));
  ASSERT_TRUE(exit);
  EXPECT_EQ(exit->code, 1);
  EXPECT_NE(d.output(Output::err).find("cannot listen on 192.0.2.1"), std::string::npos)
      << d.output(Output::err);
}

TEST_F(ProxyTest, SighupAppliesLiveSettingsAndNamesWhatNeedsARestart) {
  ASSERT_TRUE(start_proxy());
  EXPECT_EQ(fetch("/obj/a?size=1").status, 200U);
  std::string config = read_file(config_path_);
  const auto node = config.find("\"test-node\"");
  ASSERT_NE(node, std::string::npos);
  config.replace(node, 11, "\"renamed-node\"");
  config.insert(config.find('{') + 1, R"("access": {"allow_clients": ["10.0.0.0/8"]},)");
  std::ofstream(config_path_) << config;
  ASSERT_EQ(::kill(daemon_->pid(), SIGHUP), 0);
  auto line = daemon_->wait_for_line("SIGHUP: reloaded.*needs a restart to apply: (.*)",
                                     std::chrono::seconds(10), Output::err);
  ASSERT_TRUE(line) << daemon_log();
  EXPECT_NE((*line)[1].find("$.node.id"), std::string::npos);
  EXPECT_EQ(fetch("/obj/a?size=1").status, 403U);  // the new access rule is live
}

TEST_F(ProxyTest, SigusrOneReopensTheAccessLog) {
  ASSERT_TRUE(start_proxy());
  fetch("/obj/first?size=1");
  const auto log = work_.path() / "access.log";
  ASSERT_TRUE(file_gets(log, "/obj/first"));
  std::filesystem::rename(log, work_.path() / "access.log.1");
  ASSERT_EQ(::kill(daemon_->pid(), SIGUSR1), 0);
  ASSERT_TRUE(daemon_->wait_for_line("logs reopened", std::chrono::seconds(10), Output::err));
  fetch("/obj/second?size=1");
  ASSERT_TRUE(file_gets(log, "/obj/second")) << read_file(log);
  EXPECT_NE(read_file(log).find("TCP_MISS/200"), std::string::npos) << read_file(log);
  EXPECT_EQ(read_file(log).find("/obj/first"), std::string::npos);
}

}  // namespace
}  // namespace sumcache::testing
