#include "tests/daemon/integration/proxy_fixture.h"

#include <fstream>
#include <thread>

#include "tests/daemon/admin/metric_samples.h"

namespace sumcache::testing {

std::string ProxyTest::origin_url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(origin_.port()) + path;
}

bool ProxyTest::start_proxy(const ProxyOptions& options) {
  options_ = options;
  std::string reverse;
  if (options.mode == "reverse") {
    const std::string url = options.origin_url.empty() ? origin_url("") : options.origin_url;
    const std::string tls =
        options.reverse_tls_json.empty() ? "" : R"(, "tls": )" + options.reverse_tls_json;
    reverse = R"("reverse": {"origin": ")" + url + "\"" + tls + "},";
  }
  const std::string listen_tls =
      options.listen_tls_json.empty() ? "" : R"(, "tls": )" + options.listen_tls_json;
  const std::string config = R"({
    "node": {"id": "test-node"},
    "mode": ")" + options.mode + R"(",
    "workers": 2,
    "listen": [{"address": "127.0.0.1", "port": 0)" + listen_tls + options.listen_json + R"(}],
    "admin": )" + options.admin_json + R"(,
    )" + reverse + options.extra_json + R"(
    "cache": {)" + options.cache_json + R"(
              "disk": {"path": ")" + cache_dir().string() + R"(", "max_bytes": "64MiB"},
              "memory": {"max_bytes": "64MiB"}, "max_object_bytes": "8MiB"},
    "log": {"access_log": ")" + (work_.path() / "access.log").string() + R"(", "level": "debug"}
  })";
  config_path_ = work_.path() / "sumcache.json";
  std::ofstream(config_path_) << config;
  return restart_proxy();
}

std::uint16_t ProxyTest::admin_port() {
  if (admin_port_ == 0 && daemon_) {
    const auto match = daemon_->wait_for_line("admin listening on 127\\.0\\.0\\.1:([0-9]+)",
                                              std::chrono::seconds(10), Output::err);
    if (match) admin_port_ = static_cast<std::uint16_t>(std::stoi((*match)[1]));
  }
  return admin_port_;
}

std::string ProxyTest::metric_value(const std::string& name, const std::string& want) {
  const std::uint16_t port = admin_port();
  if (port == 0) return "no admin port";
  HttpClient admin({.host = "127.0.0.1", .port = port, .reuse_connection = false});
  std::string got;
  for (int i = 0; i < 200 && got != want; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto metrics = admin.send({.target = "/metrics"});
    if (!metrics.ok()) {
      got = "no answer: " + metrics.error().message();
      continue;
    }
    const auto samples = metric_samples(metrics->body);
    const auto it = samples.find(name);
    got = it == samples.end() ? "absent" : it->second;
  }
  return got;
}

bool ProxyTest::restart_proxy() {
  admin_port_ = 0;
  daemon_ = std::make_unique<DaemonProcess>();
  if (daemon_->start(SUMCACHED_PATH, {"--config", config_path_.string()})) {
    ADD_FAILURE() << "cannot start " << SUMCACHED_PATH;
    return false;
  }
  auto match = daemon_->wait_for_line("proxy listening on 127\\.0\\.0\\.1:([0-9]+)",
                                      std::chrono::seconds(30), Output::err);
  if (!match) {
    ADD_FAILURE() << "sumcached did not start:\n" << daemon_log();
    return false;
  }
  port_ = static_cast<std::uint16_t>(std::stoi((*match)[1]));
  return true;
}

void ProxyTest::stop_proxy() {
  auto status = daemon_->stop(SIGTERM, std::chrono::seconds(15));
  ASSERT_TRUE(status.has_value()) << "sumcached did not stop on SIGTERM";
  EXPECT_EQ(status->code, 0) << daemon_log();
}

ClientResponse ProxyTest::fetch(const std::string& path, HeaderList headers,
                                const std::string& method, const std::string& body) {
  HttpClient client({.host = "127.0.0.1", .port = port_, .reuse_connection = false});
  const std::string target = options_.mode == "forward" ? origin_url(path) : path;
  auto response = client.send({.method = method, .target = target, .headers = std::move(headers),
                               .body = body});
  EXPECT_TRUE(response.ok()) << method << " " << path << ": " << response.error().message();
  return response.ok() ? std::move(response).value() : ClientResponse{};
}

}  // namespace sumcache::testing
