// DaemonProcess, TempDir and free_port, with test_origin_server as the daemon.

#include "tests/support/daemon_process.h"

#include <gtest/gtest.h>

#include "tests/support/http_client.h"
#include "tests/support/ports.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_pki.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kListening = "^listening (\\d+)$";

std::uint16_t listening_port(DaemonProcess& daemon) {
  const auto match = daemon.wait_for_line(kListening, 10s);
  EXPECT_TRUE(match) << daemon.output(Output::err);
  return match ? static_cast<std::uint16_t>(std::stoi((*match)[1])) : 0;
}

TEST(DaemonProcess, OriginServerReportsItsPortAnswersAndExitsZeroOnSigterm) {
  DaemonProcess daemon;
  ASSERT_FALSE(daemon.start(SUMCACHE_TEST_ORIGIN_SERVER, {"--port", "0"}));
  const std::uint16_t port = listening_port(daemon);
  ASSERT_NE(port, 0);
  EXPECT_EQ(http_get(port, "/obj/a?size=3").value().body.size(), 3u);
  EXPECT_TRUE(daemon.wait_for_line("^request GET /obj/a\\?size=3$", 5s, Output::err));
  const auto status = daemon.stop(SIGTERM, 5s);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->code, 0);
  EXPECT_FALSE(port_accepts("127.0.0.1", port, 200ms));
}

TEST(DaemonProcess, OriginServerSpeaksHttpsWithGivenFiles) {
  DaemonProcess daemon;
  const TestPki pki = make_test_pki(daemon.dir());
  ASSERT_FALSE(daemon.start(
      SUMCACHE_TEST_ORIGIN_SERVER,
      {"--https", "--cert", pki.server_cert.string(), "--key", pki.server_key.string()}));
  const std::uint16_t port = listening_port(daemon);
  HttpClient client({.port = port, .tls_ca = pki.ca_cert});
  EXPECT_EQ(client.send({.target = "/obj/s"}).value().status, 200u);
}

TEST(DaemonProcess, WaitForPortSeesAFixedPortOpen) {
  DaemonProcess daemon;
  const std::uint16_t port = free_port();
  ASSERT_FALSE(daemon.start(SUMCACHE_TEST_ORIGIN_SERVER, {"--port", std::to_string(port)}));
  EXPECT_TRUE(daemon.wait_for_port(port, 10s)) << daemon.output(Output::err);
}

TEST(DaemonProcess, StartReportsAProgramThatCannotRun) {
  DaemonProcess daemon;
  EXPECT_EQ(daemon.start("/nonexistent/sumcached", {}),
            std::error_code(ENOENT, std::system_category()));
  EXPECT_FALSE(daemon.stop());
}

TEST(DaemonProcess, CapturesOutputInItsDirAndTheExitCode) {
  DaemonProcess daemon;
  daemon.write_file("config.json", "{\"port\": 0}\n");
  ASSERT_FALSE(daemon.start("/bin/sh", {"-c", "cat config.json; echo oops >&2; exit 3"}));
  // The pattern never matches: the wait ends when the child does, not at the timeout.
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(daemon.wait_for_line("never", 10s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s);
  EXPECT_EQ(daemon.output(Output::out), "{\"port\": 0}\n");
  EXPECT_EQ(daemon.output(Output::err), "oops\n");
  ASSERT_TRUE(daemon.exit_status());
  EXPECT_EQ(daemon.exit_status()->code, 3);
}

TEST(DaemonProcess, KillHardEndsAChildThatIgnoresSigterm) {
  DaemonProcess daemon;
  // exec keeps the PID; the ignored SIGTERM survives it.
  ASSERT_FALSE(daemon.start("/bin/sh", {"-c", "trap '' TERM; echo ready; exec sleep 30"}));
  ASSERT_TRUE(daemon.wait_for_line("^ready$", 10s));
  EXPECT_FALSE(daemon.stop(SIGTERM, 200ms));
  EXPECT_TRUE(daemon.running());
  const auto status = daemon.kill_hard();
  ASSERT_TRUE(status);
  EXPECT_EQ(status->signal, SIGKILL);
}

TEST(DaemonProcess, DestructorStopsTheChild) {
  pid_t pid = 0;
  {
    DaemonProcess daemon;
    ASSERT_FALSE(daemon.start("/bin/sleep", {"30"}));
    pid = daemon.pid();
  }
  EXPECT_NE(::kill(pid, 0), 0);  // reaped: no such process
}

TEST(TempDir, IsRemovedWithItsContents) {
  std::filesystem::path path;
  {
    TempDir dir;
    path = dir.path();
    std::filesystem::create_directories(path / "a" / "b");
    EXPECT_TRUE(std::filesystem::is_directory(path / "a" / "b"));
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace sumcache::testing
