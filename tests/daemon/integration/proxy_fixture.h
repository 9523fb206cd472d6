#pragma once
// A real sumcached process and a real origin on loopback, for integration
// tests. The daemon binds port 0; its log line tells the port.

#include <gtest/gtest.h>

#include <string>

#include "tests/support/daemon_process.h"
#include "tests/support/http_client.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_origin.h"

namespace sumcache::testing {

struct ProxyOptions {
  std::string mode = "forward";
  std::string extra_json{};  // more top-level fields, each followed by a comma
  std::string cache_json{};  // more fields of the "cache" object, each followed by a comma
  std::string origin_url{};  // reverse mode: defaults to the test origin
  std::string reverse_tls_json{};  // reverse mode: the "tls" object, when the origin is https
  std::string admin_json = R"({"enabled": false})";  // the "admin" object
  std::string listen_tls_json{};  // the listener's "tls" object; empty: plain HTTP
  std::string listen_json{};      // more fields of the listener, each preceded by a comma
};

class ProxyTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(origin_.start()) << "test origin did not start"; }

  // Starts sumcached on a config built from `options`; returns false (with a
  // test failure) when it does not come up.
  bool start_proxy(const ProxyOptions& options = {});
  // SIGTERM, and the exit status must be 0.
  void stop_proxy();
  // Starts again in the same directory (same cache), same config.
  bool restart_proxy();

  // GET (or another method) through the proxy: absolute-form in forward mode.
  ClientResponse fetch(const std::string& path, HeaderList headers = {},
                       const std::string& method = "GET", const std::string& body = "");
  std::string origin_url(const std::string& path) const;

  // The admin port, from the daemon's log line (options.admin_json must open one); 0 if none.
  std::uint16_t admin_port();
  // The /metrics sample `name` ("family{labels}" as metric_samples keys it), polled until it
  // reads `want` or 10 s pass; "absent" when /metrics does not show it.
  std::string metric_value(const std::string& name, const std::string& want);

  // The process's captured log so far.
  std::string daemon_log() const { return daemon_ ? daemon_->output(Output::err) : ""; }
  std::filesystem::path cache_dir() const { return work_.path() / "cache"; }

  TestOrigin origin_;
  TempDir work_;  // config and cache: they outlive each daemon process
  std::unique_ptr<DaemonProcess> daemon_;
  std::uint16_t port_ = 0;
  std::uint16_t admin_port_ = 0;
  ProxyOptions options_;
  std::filesystem::path config_path_;
};

// Conformance tables run once per mode: forward and reverse reach the origin by different
// paths (absolute-form targets and CONNECT, against one configured origin), and a rule must
// hold in both. A suite derives from BothModes and instantiates with
//   INSTANTIATE_TEST_SUITE_P(Modes, Suite, kBothModes, mode_name);
class BothModes : public ProxyTest, public ::testing::WithParamInterface<std::string> {
 protected:
  void SetUp() override {
    ProxyTest::SetUp();
    ProxyOptions options = extra_options();
    options.mode = GetParam();
    ASSERT_TRUE(start_proxy(options));
  }
  // Config a suite adds in both modes (its mode field is overwritten).
  virtual ProxyOptions extra_options() const { return {}; }
};

inline const auto kBothModes = ::testing::Values(std::string("forward"), std::string("reverse"));
inline std::string mode_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

}  // namespace sumcache::testing
