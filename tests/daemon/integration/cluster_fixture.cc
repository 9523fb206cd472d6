#include "tests/daemon/integration/cluster_fixture.h"

#include <signal.h>

#include <fstream>
#include <thread>

#include "tests/support/ports.h"
#include "tests/support/test_pki.h"

namespace sumcache::testing {

namespace {

std::string node_extra(const ClusterNode& self, const std::vector<ClusterNode>& all,
                       const ClusterOptions& o) {
  for (std::size_t i = 0; i < all.size() && i < o.node_extra_json.size(); ++i) {
    if (all[i].id == self.id) return o.node_extra_json[i];
  }
  return {};
}

std::string node_config(const ClusterNode& self, const std::vector<ClusterNode>& all,
                        const ClusterOptions& o, const std::filesystem::path& dir,
                        const std::string& tls_json) {
  std::string peers;
  for (const auto& p : all) {
    if (p.id == self.id || (!p.listed && self.listed) || o.no_peer_lists) continue;
    if (!peers.empty()) peers += ",";
    peers += R"({"id": ")" + p.id + R"(", "host": ")" + p.address + R"(", "http_port": )" +
             std::to_string(p.http_port) + R"(, "peer_port": )" + std::to_string(p.peer_port) +
             R"(, "icp_port": )" + std::to_string(p.icp_port) + R"(, "object_port": )" +
             std::to_string(p.object_port) + R"(, "admin_port": )" + std::to_string(p.admin_port) +
             "}";
  }
  return R"({
    "node": {"id": ")" +
         self.id + R"("},
    "mode": "forward",
    "workers": 2,
    "listen": [{"address": ")" +
         self.address + R"(", "port": )" + std::to_string(self.http_port) + "}" +
         (o.listen_ipv6_too
              ? R"(, {"address": "::1", "port": )" + std::to_string(self.http_port) + "}"
              : "") +
         R"(],
    )" + o.extra_json +
         node_extra(self, all, o) +
         R"(
    "admin": {"address": "127.0.0.1", "port": )" +
         std::to_string(self.admin_port) + R"(, "token": ")" + kAdminToken + R"("},
    "cache": {)" +
         o.extra_cache_json + R"("disk": {"enabled": )" + (o.disk ? "true" : "false") +
         R"(, "path": ")" + (dir / "cache").string() +
         R"(", "max_bytes": "64MiB"},
              "memory": {"max_bytes": "64MiB"}, "max_object_bytes": "8MiB"},
    "log": {"access_log": ")" +
         (dir / "access.log").string() + R"(", "level": "debug"},
    "cluster": {"sharing": ")" +
         o.sharing + R"(", "secret": ")" + self.secret + R"(",
                "peer_listen": {"address": ")" +
         self.address + R"(", "port": )" + std::to_string(self.peer_port) + R"(},
                "icp_port": )" +
         std::to_string(self.icp_port) + R"(,
                "object_listen": {"address": ")" +
         self.address + R"(", "port": )" + std::to_string(self.object_port) + R"(},
                )" +
         o.extra_cluster_json + tls_json + R"(
                "update_threshold_percent": )" +
         std::to_string(o.threshold_percent) + R"(,
                "update_max_interval_ms": )" +
         std::to_string(o.update_interval_ms) + R"(,
                "summary_expiry_ms": 5000, "peer_timeout_ms": 1000},
    "peers": [)" +
         peers + R"(]
  })";
}

}  // namespace

std::size_t count_matches(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::string ClusterTest::origin_url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(origin_.port()) + path;
}

bool ClusterTest::start_cluster(const ClusterOptions& options) {
  options_ = options;
  if (options.tls) {
    const TestPki pki = make_test_pki(work_.path());
    tls_json_ = R"("tls": {"enabled": true, "cert_file": ")" + pki.server_cert.string() +
                R"(", "key_file": ")" + pki.server_key.string() + R"(", "ca_file": ")" +
                pki.ca_cert.string() + R"("},)";
    tls_ca_ = pki.ca_cert;
  }
  nodes_.resize(options.nodes);
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    nodes_[i].id = "node-" + std::string(1, static_cast<char>('a' + i));
    const bool shared_ports = options.distinct_addresses && i > 0;
    nodes_[i].http_port = shared_ports ? nodes_[0].http_port : free_port();
    nodes_[i].peer_port = shared_ports ? nodes_[0].peer_port : free_port();
    nodes_[i].icp_port = shared_ports ? nodes_[0].icp_port : free_port();
    nodes_[i].object_port = shared_ports ? nodes_[0].object_port : free_port();
    nodes_[i].admin_port = free_port();
    nodes_[i].secret = options.secret;
    if (options.distinct_addresses) nodes_[i].address = "127.0.0." + std::to_string(20 + i);
    nodes_[i].listed = i + options.late_nodes < options.nodes;
  }
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    const auto dir = work_.path() / nodes_[i].id;
    std::filesystem::create_directories(dir);
    nodes_[i].config = dir / "sumcache.json";
    std::ofstream(nodes_[i].config) << node_config(nodes_[i], nodes_, options, dir, tls_json_);
  }
  for (std::size_t i = 0; i + options.late_nodes < nodes_.size(); ++i) {
    if (!start_node(i)) return false;
  }
  return true;
}

void ClusterTest::write_config(std::size_t i) {
  std::ofstream(nodes_[i].config) << node_config(nodes_[i], nodes_, options_,
                                                 nodes_[i].config.parent_path(), tls_json_);
}

bool ClusterTest::reload_node(std::size_t i) {
  const std::size_t before = count_matches(log_of(i), "SIGHUP: reloaded");
  if (::kill(nodes_[i].process->pid(), SIGHUP) != 0) return false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (count_matches(log_of(i), "SIGHUP: reloaded") > before) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

bool ClusterTest::start_node(std::size_t i) {
  auto& node = nodes_[i];
  // A changed secret must reach the file: rewrite it each start.
  std::ofstream(node.config) << node_config(node, nodes_, options_, node.config.parent_path(),
                                            tls_json_);
  node.process = std::make_unique<DaemonProcess>();
  if (node.process->start(SUMCACHED_PATH, {"--config", node.config.string()})) {
    ADD_FAILURE() << "cannot start " << SUMCACHED_PATH;
    return false;
  }
  // The admin listener binds after the proxy's: a test may ask it at once.
  if (!node.process->wait_for_line("proxy listening on 127\\.0\\.0\\.", std::chrono::seconds(30),
                                   Output::err) ||
      !node.process->wait_for_line("admin listening on 127\\.0\\.0\\.", std::chrono::seconds(10),
                                   Output::err)) {
    ADD_FAILURE() << node.id << " did not start:\n" << log_of(i);
    return false;
  }
  return true;
}

void ClusterTest::kill_node(std::size_t i) { nodes_[i].process->kill_hard(); }

unsigned ClusterTest::local_status(std::size_t node, const std::string& path) {
  return fetch(node, path, {{"Cache-Control", "only-if-cached"}}).status;
}

bool ClusterTest::cut_peer_channel(std::size_t from, std::size_t to) {
  kill_node(from);
  const std::uint16_t real = nodes_[to].peer_port;
  nodes_[to].peer_port = free_port();
  const bool started = start_node(from);
  nodes_[to].peer_port = real;
  return started;
}

ClientResponse ClusterTest::fetch(std::size_t node, const std::string& path, HeaderList headers,
                                  const std::string& method) {
  HttpClient client({.host = nodes_[node].address,
                     .port = nodes_[node].http_port,
                     .timeout = std::chrono::seconds(10),
                     .reuse_connection = false});
  auto response = client.send(
      {.method = method, .target = origin_url(path), .headers = std::move(headers), .body = {}});
  EXPECT_TRUE(response.ok()) << method << " " << path << " at " << nodes_[node].id << ": "
                             << response.error().message();
  return response.ok() ? std::move(response).value() : ClientResponse{};
}

ClientResponse ClusterTest::admin(std::size_t node, const std::string& target,
                                  const std::string& method, const std::string& body,
                                  bool authorized) {
  HttpClient client({.host = "127.0.0.1",
                     .port = nodes_[node].admin_port,
                     .timeout = std::chrono::seconds(10),
                     .reuse_connection = false});
  HeaderList headers;
  if (authorized) headers.push_back({"Authorization", std::string("Bearer ") + kAdminToken});
  if (!body.empty()) headers.push_back({"Content-Type", "application/json"});
  auto response = client.send(
      {.method = method, .target = target, .headers = std::move(headers), .body = body});
  EXPECT_TRUE(response.ok()) << method << " " << target << " at " << nodes_[node].id
                             << " admin: " << response.error().message();
  return response.ok() ? std::move(response).value() : ClientResponse{};
}

std::string ClusterTest::log_of(std::size_t node) const {
  return nodes_[node].process ? nodes_[node].process->output(Output::err) : "";
}

std::string ClusterTest::access_log_of(std::size_t node) const {
  std::ifstream in(nodes_[node].config.parent_path() / "access.log");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool ClusterTest::wait_for_access(std::size_t node, const std::string& needle,
                                  std::size_t n) const {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline) {
    if (count_matches(access_log_of(node), needle) >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

bool ClusterTest::wait_for_deliveries(std::size_t from, std::size_t to, std::size_t n) {
  const std::string line = "delivered to " + nodes_[to].id;
  const std::size_t start = count_matches(log_of(from), line);
  // Longer than the longest retry backoff (12.8 s, peer_table.cc): a node
  // started before its peer may have failed often enough to wait that long.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (count_matches(log_of(from), line) >= start + n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ADD_FAILURE() << nodes_[from].id << " delivered no summaries to " << nodes_[to].id << ":\n"
                << log_of(from) << "\n/peers: " << admin(from, "/peers").body;
  return false;
}

}  // namespace sumcache::testing
