#pragma once
// Several real sumcached processes that name each other as peers, and one
// real origin, on loopback. Ports are picked free before the configs are
// written (peers must know each other's ports up front).

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/support/daemon_process.h"
#include "tests/support/http_client.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_origin.h"

namespace sumcache::testing {

struct ClusterOptions {
  std::size_t nodes = 3;
  std::string sharing = "summary";
  std::string secret = "cluster-test-secret-0123456789";
  int update_interval_ms = 100;
  double threshold_percent = 1.0;
  bool disk = false;
  bool tls = false;                  // summaries over TLS, with a test PKI made for the run
  std::string extra_cluster_json{};  // more "cluster" fields, each followed by a comma
  std::string extra_json{};          // more top-level fields, each followed by a comma
  // Node i's own top-level fields (after extra_json), each followed by a
  // comma: nodes of one cluster configured apart (a mixed filter.kind).
  std::vector<std::string> node_extra_json{};
  std::string extra_cache_json{};    // more "cache" fields, each followed by a comma
  bool listen_ipv6_too = false;      // the proxy also listens on [::1], same port
  // The last late_nodes nodes are neither started by start_cluster nor named
  // in the others' peers (they name every node): a test adds them (live membership).
  std::size_t late_nodes = 0;
  // Discovery (live membership): node i listens on 127.0.0.(20 + i), every
  // node on the same ports, and the others find it in a hosts file.
  bool distinct_addresses = false;
  // No node names another in `peers`: they find each other otherwise
  // (cluster.transport "redis": the members in Redis).
  bool no_peer_lists = false;
};

struct ClusterNode {
  std::string id;
  std::uint16_t http_port = 0;
  std::uint16_t peer_port = 0;
  std::uint16_t icp_port = 0;
  std::uint16_t object_port = 0;  // the TLS object listener, with options.tls
  std::uint16_t admin_port = 0;
  std::string secret;
  std::filesystem::path config;
  std::unique_ptr<DaemonProcess> process;
  std::string address = "127.0.0.1";  // where it listens (options.distinct_addresses)
  bool listed = true;                 // named in the other nodes' peers
};

class ClusterTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(origin_.start()) << "test origin did not start"; }

  // Writes every node's config (each names all the others) and starts them all.
  bool start_cluster(const ClusterOptions& options);
  // Starts node i again on its config (and its cache directory).
  bool start_node(std::size_t i);
  void kill_node(std::size_t i);
  // Writes node i's config again (the peers it names follow `listed`).
  void write_config(std::size_t i);
  // Sends node i SIGHUP and waits for its reload line: false after 10 s.
  bool reload_node(std::size_t i);

  ClientResponse fetch(std::size_t node, const std::string& path, HeaderList headers = {},
                       const std::string& method = "GET");
  std::string origin_url(const std::string& path) const;
  // Whether `node` holds `path` itself: only-if-cached is answered from its
  // store alone, never from a peer or the origin (RFC 9111 §5.2.1.7).
  unsigned local_status(std::size_t node, const std::string& path);
  // Node `from` can no longer reach `to`'s peer listener (a partition of that
  // one direction), while `to` still pushes its summaries to `from` and serves
  // objects: `from` is restarted with a dead peer port for `to`.
  bool cut_peer_channel(std::size_t from, std::size_t to);
  // A request to node's admin endpoint (token kAdminToken when `authorized`).
  ClientResponse admin(std::size_t node, const std::string& target,
                       const std::string& method = "GET", const std::string& body = "",
                       bool authorized = false);
  std::string log_of(std::size_t node) const;
  std::string access_log_of(std::size_t node) const;
  // Waits until node's access log holds `needle` at least n times (a line is
  // written after its response): false when 10 s pass first.
  bool wait_for_access(std::size_t node, const std::string& needle, std::size_t n = 1) const;
  // Waits until node `from` has delivered `n` more summaries to node `to` than
  // it had at the call: with n = 2, one was taken after the call.
  bool wait_for_deliveries(std::size_t from, std::size_t to, std::size_t n = 2);

  TestOrigin origin_;
  TempDir work_;
  ClusterOptions options_;
  std::string tls_json_;          // the "tls" member of "cluster", when options_.tls
  std::filesystem::path tls_ca_;  // the CA that signed every node's certificate, with options_.tls
  std::vector<ClusterNode> nodes_;
};

inline constexpr const char* kAdminToken = "cluster-admin-token-0123456789";

std::size_t count_matches(const std::string& text, const std::string& needle);

}  // namespace sumcache::testing
