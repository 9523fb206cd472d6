#include "tests/daemon/integration/admin_node.h"

#include <chrono>

namespace sumcache::testing {

std::string AdminNode::origin_url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(origin_.port()) + path;
}

bool AdminNode::start(const AdminNodeOptions& options) {
  if (origin_.start()) {
    failure = "test origin did not start";
    return false;
  }
  daemon_ = std::make_unique<DaemonProcess>();
  const std::string admin_tls =
      options.admin_tls_json.empty() ? "" : R"(, "tls": )" + options.admin_tls_json;
  const std::string config = R"({
    "node": {"id": "admin-node"},
    "mode": "forward",
    "workers": 2,
    "listen": [{"address": "127.0.0.1", "port": 0}],
    "admin": {"address": "127.0.0.1", "port": 0, "token": ")" +
                             options.token + "\"" + admin_tls + R"(},
    )" + options.extra_json + R"(
    "cache": {"disk": {"path": ")" +
                             (daemon_->dir() / "cache").string() + R"(",
                       "max_bytes": "64MiB"},
              "memory": {"max_bytes": "64MiB"}, "max_object_bytes": "8MiB"},
    "log": {"access_log": "", "level": "info"}
  })";
  const auto path = daemon_->write_file("sumcache.json", config);
  if (daemon_->start(SUMCACHED_PATH, {"--config", path.string()})) {
    failure = std::string("cannot start ") + SUMCACHED_PATH;
    return false;
  }
  // Both listeners bind port 0 and name their ports in the log.
  const auto proxy = daemon_->wait_for_line("proxy listening on 127\\.0\\.0\\.1:([0-9]+)",
                                            std::chrono::seconds(30), Output::err);
  const auto admin = daemon_->wait_for_line("admin listening on 127\\.0\\.0\\.1:([0-9]+)",
                                            std::chrono::seconds(30), Output::err);
  if (!proxy || !admin) {
    failure = "sumcached did not start:\n" + daemon_log();
    return false;
  }
  proxy_port_ = static_cast<std::uint16_t>(std::stoi((*proxy)[1]));
  admin_port_ = static_cast<std::uint16_t>(std::stoi((*admin)[1]));
  return true;
}

Result<ClientResponse> AdminNode::fetch(const std::string& path) {
  HttpClient client({.host = "127.0.0.1", .port = proxy_port_, .reuse_connection = false});
  return client.send({.method = "GET", .target = origin_url(path), .headers = {}, .body = ""});
}

Result<ClientResponse> AdminNode::admin(const std::string& target, const std::string& method,
                                        const std::string& body, HeaderList headers) {
  HttpClient client({.host = "127.0.0.1", .port = admin_port_, .reuse_connection = false});
  return client.send(
      {.method = method, .target = target, .headers = std::move(headers), .body = body});
}

}  // namespace sumcache::testing
