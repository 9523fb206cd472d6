// The sumcachectl binary against a real sumcached: stats as a table and as JSON,
// purge with and without the right token, its exit codes, and https with admin.tls.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/daemon/integration/admin_node.h"
#include "tests/support/ports.h"
#include "tests/support/test_pki.h"

namespace sumcache::testing {
namespace {

constexpr const char* kToken = "s3cret-admin-token";

struct CtlRun {
  int code = -1;
  std::string out;
  std::string err;
};

CtlRun sumcachectl(const std::string& admin, std::vector<std::string> args) {
  args.insert(args.begin(), {"--admin", admin});
  DaemonProcess ctl;
  if (ctl.start(SUMCACHECTL_PATH, args)) return {};
  const auto exit = ctl.stop(0, std::chrono::seconds(20));
  return {exit ? exit->code : -1, ctl.output(Output::out), ctl.output(Output::err)};
}

CtlRun sumcachectl(std::uint16_t admin_port, std::vector<std::string> args) {
  return sumcachectl("127.0.0.1:" + std::to_string(admin_port), std::move(args));
}

class SumcachectlDaemon : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(node_.start({.token = kToken, .extra_json = ""})) << node_.failure;
    for (const char* path : {"/obj/p?max_age=600", "/obj/p?max_age=600"}) {
      auto response = node_.fetch(path);
      ASSERT_TRUE(response && response->status == 200U);
    }
  }
  AdminNode node_;
};

TEST_F(SumcachectlDaemon, StatsJsonIsTheDaemonsStatsAndTheTableNamesItsFigures) {
  const auto json_run = sumcachectl(node_.admin_port(), {"stats", "--json"});
  ASSERT_EQ(json_run.code, 0) << json_run.err;
  const auto stats = nlohmann::json::parse(json_run.out, nullptr, false);
  ASSERT_TRUE(stats.is_object()) << json_run.out;
  EXPECT_EQ(stats["requests"]["total"], 2);
  EXPECT_EQ(stats["node_id"], "admin-node");

  const auto table = sumcachectl(node_.admin_port(), {"stats"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("admin-node"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("2 total"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("since_start"), std::string::npos) << table.out;

  for (const char* verb : {"peers", "filter"}) {
    const auto run = sumcachectl(node_.admin_port(), {verb});
    EXPECT_EQ(run.code, 0) << verb << ": " << run.err;
  }
}

TEST_F(SumcachectlDaemon, PurgeRemovesACachedUrlThenReportsItNotCached) {
  const std::string url = node_.origin_url("/obj/p?max_age=600");
  std::ofstream(::testing::TempDir() + "/sumcachectl-token") << kToken << "\n";
  const auto first =
      sumcachectl(node_.admin_port(),
                  {"--token-file", ::testing::TempDir() + "/sumcachectl-token", "purge", url});
  EXPECT_EQ(first.code, 0) << first.out << first.err << node_.daemon_log();
  EXPECT_NE(first.out.find("purged"), std::string::npos) << first.out;
  // The whole answer: where it took effect (a node without peers: itself).
  EXPECT_NE(first.out.find("nodes: 1 of 1 acknowledged"), std::string::npos) << first.out;
  const auto again = sumcachectl(node_.admin_port(), {"--token", kToken, "purge", url});
  EXPECT_EQ(again.code, 1) << again.out << again.err;
  // Gone from the cache: the next request is a miss again.
  auto response = node_.fetch("/obj/p?max_age=600");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->header("X-Cache").value_or(""), "MISS");
}

TEST_F(SumcachectlDaemon, PurgeByTagAndByPrefix) {
  auto tagged = node_.fetch("/obj/tagged?max_age=600&surrogate_key=t1%20t2");
  ASSERT_TRUE(tagged && tagged->status == 200U);
  const auto by_tag = sumcachectl(node_.admin_port(), {"--token", kToken, "purge", "--tag", "t2"});
  EXPECT_EQ(by_tag.code, 0) << by_tag.out << by_tag.err;
  EXPECT_NE(by_tag.out.find("purged 1 object(s) here: tag t2"), std::string::npos) << by_tag.out;
  EXPECT_NE(by_tag.out.find("nodes: 1 of 1 acknowledged"), std::string::npos) << by_tag.out;
  const auto json = sumcachectl(node_.admin_port(), {"--token", kToken, "--json", "purge",
                                                     "--prefix", node_.origin_url("/obj/")});
  EXPECT_EQ(json.code, 0) << json.out << json.err;
  const auto answer = nlohmann::json::parse(json.out, nullptr, false);
  EXPECT_EQ(answer["purged"], 1) << json.out;  // /obj/p; /obj/tagged went by its tag
  EXPECT_EQ(answer["nodes"]["total"], 1) << json.out;
  auto response = node_.fetch("/obj/p?max_age=600");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->header("X-Cache").value_or(""), "MISS");
}

TEST_F(SumcachectlDaemon, PurgeWithAWrongTokenIsAnErrorAndPurgesNothing) {
  const std::string url = node_.origin_url("/obj/p?max_age=600");
  const auto wrong = sumcachectl(node_.admin_port(), {"--token", "not-the-token", "purge", url});
  EXPECT_EQ(wrong.code, 2);
  EXPECT_NE(wrong.err.find("401"), std::string::npos) << wrong.err;
  auto response = node_.fetch("/obj/p?max_age=600");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->header("X-Cache").value_or(""), "HIT");
}

TEST(SumcachectlPeers, PeerAddAndRemoveChangeALiveNodesPeers) {
  // A summary-mode node without peers: sumcachectl adds one and removes it.
  AdminNode node;
  const std::string cluster =
      R"("cluster": {"sharing": "summary", "secret": "ctl-test-secret-0123456789",
                     "peer_listen": {"address": "127.0.0.1", "port": )" +
      std::to_string(free_port()) + "}},";
  ASSERT_TRUE(node.start({.token = kToken, .extra_json = cluster})) << node.failure;
  const auto add = sumcachectl(node.admin_port(), {"--token", kToken, "peer", "add", "node-x",
                                                   "127.0.0.9", "--http-port", "9128"});
  EXPECT_EQ(add.code, 0) << add.err;
  EXPECT_NE(add.out.find("peer node-x added"), std::string::npos) << add.out;
  const auto peers = sumcachectl(node.admin_port(), {"--json", "peers"});
  EXPECT_NE(peers.out.find("\"node-x\""), std::string::npos) << peers.out;
  const auto twice =
      sumcachectl(node.admin_port(), {"--token", kToken, "peer", "add", "node-x", "127.0.0.10"});
  EXPECT_EQ(twice.code, 2);
  EXPECT_NE(twice.err.find("HTTP 409"), std::string::npos) << twice.err;
  const auto remove =
      sumcachectl(node.admin_port(), {"--token", kToken, "peer", "remove", "node-x"});
  EXPECT_EQ(remove.code, 0) << remove.err;
  EXPECT_EQ(sumcachectl(node.admin_port(), {"--json", "peers"}).out.find("node-x"),
            std::string::npos);
  const auto again =
      sumcachectl(node.admin_port(), {"--token", kToken, "peer", "remove", "node-x"});
  EXPECT_EQ(again.code, 2);
  EXPECT_NE(again.err.find("HTTP 404"), std::string::npos) << again.err;
  const auto no_token = sumcachectl(node.admin_port(), {"peer", "remove", "node-x"});
  EXPECT_NE(no_token.err.find("HTTP 401"), std::string::npos) << no_token.err;
}

TEST(SumcachectlNoToken, PurgeIsRefusedWhileTheDaemonHasNoToken) {
  AdminNode node;
  ASSERT_TRUE(node.start()) << node.failure;
  const auto run =
      sumcachectl(node.admin_port(), {"--token", "any", "purge", node.origin_url("/x")});
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("HTTP 403"), std::string::npos) << run.err;
}

TEST(SumcachectlNoDaemon, AClosedPortIsAnErrorWithTheReason) {
  // Port 1 (tcpmux) is not served on loopback here: the connect is refused.
  const auto run = sumcachectl(1, {"--timeout-ms", "2000", "stats"});
  EXPECT_EQ(run.code, 2);
  EXPECT_NE(run.err.find("127.0.0.1:1/stats"), std::string::npos) << run.err;
}

TEST(SumcachectlTls, HttpsVerifiesTheAdminsCertificateAndName) {
  TempDir pki_dir;
  const TestPki pki = make_test_pki(pki_dir.path());
  AdminNode node;
  ASSERT_TRUE(node.start({.token = kToken,
                          .extra_json = "",
                          .admin_tls_json = R"({"certificates": [{"cert_file": ")" +
                                            pki.server_cert.string() + R"(", "key_file": ")" +
                                            pki.server_key.string() + R"("}]})"}))
      << node.failure;
  const std::string port = std::to_string(node.admin_port());
  // The certificate names both: the IP checked as such, localhost by name and SNI.
  for (const std::string host : {"127.0.0.1", "localhost"}) {
    const auto run = sumcachectl("https://" + host + ":" + port,
                                 {"--cacert", pki.ca_cert.string(), "--json", "stats"});
    ASSERT_EQ(run.code, 0) << host << ": " << run.err << node.daemon_log();
    const auto stats = nlohmann::json::parse(run.out, nullptr, false);
    EXPECT_EQ(stats["node_id"], "admin-node") << run.out;
  }
  const auto purge = sumcachectl(
      "https://localhost:" + port,
      {"--cacert", pki.ca_cert.string(), "--token", kToken, "purge", node.origin_url("/obj/none")});
  EXPECT_EQ(purge.code, 1) << purge.out << purge.err;  // answered: not cached

  // The system store does not hold the test CA.
  const auto untrusted = sumcachectl("https://127.0.0.1:" + port, {"stats"});
  EXPECT_EQ(untrusted.code, 2);
  EXPECT_NE(untrusted.err.find("not trusted"), std::string::npos) << untrusted.err;
  EXPECT_NE(untrusted.err.find("https://127.0.0.1:" + port + "/stats"), std::string::npos)
      << untrusted.err;
  // Plain HTTP to the TLS port: the daemon's 400 says why.
  const auto plain = sumcachectl("127.0.0.1:" + port, {"stats"});
  EXPECT_EQ(plain.code, 2);
  EXPECT_NE(plain.err.find("HTTP 400"), std::string::npos) << plain.err;
  EXPECT_NE(plain.err.find("this port speaks TLS"), std::string::npos) << plain.err;
}

}  // namespace
}  // namespace sumcache::testing
