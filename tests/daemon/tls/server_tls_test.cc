// Building a listener's contexts (daemon/tls/server_tls.h) from real files:
// what loads, and that each failure names the field and the file.

#include "daemon/tls/server_tls.h"

#include <gtest/gtest.h>

#include <ctime>
#include <fstream>

#include "daemon/tls/tls_listener.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_pki.h"

namespace sumcache::daemon {
namespace {

using sumcache::testing::make_test_pki;
using sumcache::testing::TempDir;
using sumcache::testing::TestPki;

class ServerTlsBuild : public ::testing::Test {
 protected:
  void SetUp() override { pki_ = make_test_pki(dir_.path()); }

  config::ServerTlsConfig config() const {
    config::ServerTlsConfig c;
    c.certificates.push_back({pki_.server_cert, pki_.server_key, {}});
    return c;
  }
  std::filesystem::path write(const std::string& name, const std::string& bytes) {
    const auto path = dir_.path() / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  TempDir dir_;
  TestPki pki_;
};

TEST_F(ServerTlsBuild, LoadsTheCertificateWithItsNamesAndExpiry) {
  std::string failed;
  const auto tls = ServerTls::build(config(), true, failed);
  ASSERT_NE(tls, nullptr) << failed;
  ASSERT_EQ(tls->certificates().size(), 1U);
  const auto& facts = tls->certificates()[0].facts;
  EXPECT_EQ(facts.dns_names, std::vector<std::string>{"localhost"});
  // make_test_pki: valid for a day from an hour ago.
  const std::int64_t now = std::time(nullptr);
  EXPECT_GT(facts.not_after, now + 22 * 3600);
  EXPECT_LE(facts.not_after, now + 24 * 3600);
}

TEST_F(ServerTlsBuild, AMissingCertificateNamesItsField) {
  auto c = config();
  c.certificates[0].cert_file = dir_.path() / "absent.pem";
  std::string failed;
  EXPECT_EQ(ServerTls::build(c, true, failed), nullptr);
  EXPECT_EQ(failed.rfind("certificates[0].cert_file " + c.certificates[0].cert_file.string(), 0),
            0U)
      << failed;
}

TEST_F(ServerTlsBuild, AKeyOfAnotherCertificateIsRefused) {
  auto c = config();
  c.certificates.push_back(c.certificates[0]);
  // The CA's certificate with the server's key: a pair that does not match.
  c.certificates[1].cert_file = pki_.ca_cert;
  std::string failed;
  EXPECT_EQ(ServerTls::build(c, true, failed), nullptr);
  EXPECT_EQ(failed.rfind("certificates[1].key_file", 0), 0U) << failed;
}

TEST_F(ServerTlsBuild, AnOcspFileThatIsNoResponseIsRefused) {
  auto c = config();
  c.certificates[0].ocsp_file = write("bad.ocsp", "not DER at all");
  std::string failed;
  EXPECT_EQ(ServerTls::build(c, true, failed), nullptr);
  EXPECT_NE(failed.find("not one DER OCSP response"), std::string::npos) << failed;
}

TEST_F(ServerTlsBuild, ACipherListOpenSslDoesNotKnowIsRefused) {
  auto c = config();
  c.ciphers = "NO-SUCH-CIPHER";
  std::string failed;
  EXPECT_EQ(ServerTls::build(c, true, failed), nullptr);
  EXPECT_EQ(failed.rfind("ciphers: ", 0), 0U) << failed;
}

TEST_F(ServerTlsBuild, AFailedReloadKeepsTheRunningSet) {
  std::string failed;
  TlsListener listener("127.0.0.1:1", ServerTls::build(config(), true, failed), true);
  const auto before = listener.current();
  ASSERT_NE(before, nullptr) << failed;
  auto broken = config();
  broken.certificates[0].cert_file = write("broken.pem", "-----BEGIN CERTIFICATE-----\nAAAA\n");
  EXPECT_FALSE(listener.reload(broken, failed));
  EXPECT_EQ(listener.current(), before);
  EXPECT_TRUE(listener.reload(config(), failed)) << failed;
  EXPECT_NE(listener.current(), before);
  EXPECT_EQ(listener.snapshot().expiries.size(), 1U);
}

}  // namespace
}  // namespace sumcache::daemon
