// sumcachectl's https exchange against `openssl s_server -www`, a TLS server that answers
// any GET with a status page: the chain, the name and SNI are checked, and each failure
// has its own reason. Needs no sumcached.
#include <gtest/gtest.h>

#include "tests/support/daemon_process.h"
#include "tests/support/ports.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_origin.h"
#include "tests/support/test_pki.h"
#include "tools/sumcachectl/admin_client.h"
#include "tools/sumcachectl/ctl_error.h"

namespace sumcache::tools {
namespace {

using testing::DaemonProcess;
using testing::IssuedCertificate;
using testing::TestPki;

constexpr std::chrono::seconds kDay = std::chrono::hours(24);
constexpr std::chrono::milliseconds kTimeout{10000};

const AdminRequest kGet{
    .method = "GET", .target = "/stats", .token = "", .content_type = "", .body = ""};

class AdminClientTls : public ::testing::Test {
 protected:
  void SetUp() override { pki_ = testing::make_test_pki(dir_.path()); }

  // s_server on a port of its own with `args` after the address; false if it is not up.
  bool start_server(std::vector<std::string> args) {
    port_ = testing::free_port();
    args.insert(args.begin(),
                {"s_server", "-accept", "127.0.0.1:" + std::to_string(port_), "-www", "-quiet"});
    return !server_.start("/usr/bin/openssl", args) &&
           server_.wait_for_port(port_, std::chrono::seconds(10));
  }

  AdminAddress https(const std::string& verify_name) const {
    return {"127.0.0.1", port_, true, verify_name};
  }

  testing::TempDir dir_;
  TestPki pki_;
  DaemonProcess server_;
  std::uint16_t port_ = 0;
};

TEST_F(AdminClientTls, VerifiesTheChainAndTheIpAgainstTheCacert) {
  ASSERT_TRUE(start_server({"-cert", pki_.server_cert, "-key", pki_.server_key}));
  auto reply = admin_exchange(https("127.0.0.1"), pki_.ca_cert, kGet, kTimeout);
  ASSERT_TRUE(reply) << reply.error().message() << server_.output(testing::Output::err);
  EXPECT_EQ(reply->status, 200);
  // s_server -www's page describes the TLS session the request came in.
  EXPECT_NE(reply->body.find("Ciphers supported in s_server binary"), std::string::npos)
      << reply->body;
}

TEST_F(AdminClientTls, SendsTheNameAsSniAndVerifiesIt) {
  // The default certificate names other.test; only with SNI "localhost" does s_server
  // present the one that names localhost.
  const IssuedCertificate other =
      testing::issue_certificate(pki_, dir_.path(), "other", {"other.test"}, {}, kDay);
  ASSERT_TRUE(start_server({"-cert", other.cert, "-key", other.key, "-servername", "localhost",
                            "-cert2", pki_.server_cert, "-key2", pki_.server_key}));
  auto reply = admin_exchange(https("localhost"), pki_.ca_cert, kGet, kTimeout);
  ASSERT_TRUE(reply) << reply.error().message();
  EXPECT_EQ(reply->status, 200);
}

TEST_F(AdminClientTls, ACertificateForAnotherNameIsRefused) {
  const IssuedCertificate other =
      testing::issue_certificate(pki_, dir_.path(), "other", {"other.test"}, {"127.0.0.2"}, kDay);
  ASSERT_TRUE(start_server({"-cert", other.cert, "-key", other.key}));
  for (const char* name : {"127.0.0.1", "localhost"}) {
    auto reply = admin_exchange(https(name), pki_.ca_cert, kGet, kTimeout);
    ASSERT_FALSE(reply) << name;
    EXPECT_EQ(reply.error(), CtlErrc::certificate_name_mismatch) << name;
  }
}

TEST_F(AdminClientTls, ACertificateFromAnotherCaIsRefused) {
  ASSERT_TRUE(start_server({"-cert", pki_.server_cert, "-key", pki_.server_key}));
  testing::TempDir other_dir;
  const TestPki other = testing::make_test_pki(other_dir.path());
  auto reply = admin_exchange(https("127.0.0.1"), other.ca_cert, kGet, kTimeout);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error(), CtlErrc::certificate_untrusted);
}

TEST_F(AdminClientTls, AnExpiredCertificateIsRefused) {
  const IssuedCertificate expired = testing::issue_certificate(
      pki_, dir_.path(), "expired", {"localhost"}, {"127.0.0.1"}, std::chrono::seconds(-60));
  ASSERT_TRUE(start_server({"-cert", expired.cert, "-key", expired.key}));
  auto reply = admin_exchange(https("127.0.0.1"), pki_.ca_cert, kGet, kTimeout);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error(), CtlErrc::certificate_untrusted);
}

TEST_F(AdminClientTls, AMissingCacertIsItsOwnError) {
  ASSERT_TRUE(start_server({"-cert", pki_.server_cert, "-key", pki_.server_key}));
  auto reply =
      admin_exchange(https("127.0.0.1"), (dir_.path() / "absent.pem").string(), kGet, kTimeout);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error(), CtlErrc::cacert_unusable);
}

TEST(AdminClientTlsPlainPort, HttpsToAPlainHttpPortFailsQuickly) {
  testing::TestOrigin origin;
  ASSERT_FALSE(origin.start());
  const auto start = std::chrono::steady_clock::now();
  auto reply = admin_exchange({"127.0.0.1", origin.port(), true, "127.0.0.1"}, "", kGet, kTimeout);
  ASSERT_FALSE(reply);
  EXPECT_EQ(reply.error(), CtlErrc::tls_failed) << reply.error().message();
  EXPECT_LT(std::chrono::steady_clock::now() - start, kTimeout / 2);
}

}  // namespace
}  // namespace sumcache::tools
