// TLS on the client listeners (issue 28), seen by real clients only: curl and openssl
// s_client as child processes. SNI, protocol versions, session resumption, the forward
// proxy and CONNECT over TLS, plain HTTP on a TLS port, certificate reloads on SIGHUP,
// the TLS metrics, client certificates, and the admin endpoint over TLS.
#include <signal.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <thread>

#include "tests/daemon/admin/metric_samples.h"
#include "tests/daemon/integration/proxy_fixture.h"
#include "tests/support/raw_client.h"
#include "tests/support/run_program.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_pki.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kOpenssl = "/usr/bin/openssl";
constexpr const char* kCurl = "/usr/bin/curl";
constexpr std::chrono::seconds kDay = std::chrono::hours(24);
constexpr std::uint64_t kLargeBytes = std::uint64_t{64} << 20;

// The rest of the first line of `text` that starts with `prefix`; "" when there is none.
std::string line_after(const std::string& text, const std::string& prefix) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(prefix)) return line.substr(prefix.size());
  }
  return "";
}

// The server's certificate as s_client prints it: PEM, as the test PKI writes its files.
std::string leaf_pem(const std::string& s_client_out) {
  const std::string end = "-----END CERTIFICATE-----\n";
  const auto from = s_client_out.find("-----BEGIN CERTIFICATE-----");
  const auto to = s_client_out.find(end, from);
  if (from == std::string::npos || to == std::string::npos) return "";
  return s_client_out.substr(from, to + end.size() - from);
}

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string certificate_json(const std::string& stem) {
  return R"({"cert_file": ")" + stem + R"(.pem", "key_file": ")" + stem + R"(.key"})";
}

class TlsListener : public ProxyTest {
 protected:
  void SetUp() override {
    ProxyTest::SetUp();
    // In the config's directory, so the config names them relative to it.
    pki_ = make_test_pki(work_.path());
  }

  // A forward proxy whose listener has `tls_json`, and a plain admin listener for /metrics.
  bool start_tls(const std::string& tls_json, const std::string& extra_json = "") {
    return start_proxy({.extra_json = extra_json,
                        .admin_json = R"({"address": "127.0.0.1", "port": 0})",
                        .listen_tls_json = tls_json});
  }

  IssuedCertificate issue(const std::string& stem, const std::vector<std::string>& dns_names,
                          std::chrono::seconds valid_for = kDay) {
    return issue_certificate(pki_, work_.path(), stem, dns_names, {"127.0.0.1"}, valid_for);
  }

  std::string listener() const { return "127.0.0.1:" + std::to_string(port_); }
  std::string proxy_url() const { return "https://" + listener(); }

  // openssl s_client to the listener with `options` after the common ones. It sends one
  // GET through the proxy with "Connection: close", and -ign_eof keeps it reading until
  // the daemon closes: a TLS 1.3 session, which comes after the handshake, is then in hand
  // for -sess_out, and the output shows the exchange went through.
  Finished s_client(const std::vector<std::string>& options) {
    const auto request = work_.path() / "s_client_request.txt";
    std::ofstream(request) << "GET " << origin_url("/obj/s-client?size=16&max_age=600")
                           << " HTTP/1.1\r\nHost: 127.0.0.1:" << origin_.port()
                           << "\r\nConnection: close\r\n\r\n";
    std::vector<std::string> argv = {kOpenssl,  "s_client",   "-connect", listener(),
                                     "-CAfile", pki_.ca_cert, "-ign_eof"};
    argv.insert(argv.end(), options.begin(), options.end());
    return run_program(argv, request);
  }

  // curl through the TLS proxy to `url`; the headers go to `headers` when given.
  Finished curl_via_proxy(const std::string& url, const std::filesystem::path& body,
                          std::vector<std::string> options = {},
                          const std::filesystem::path& headers = {}) {
    std::vector<std::string> argv = {
        kCurl, "-sS",         "--proxy", proxy_url(),   "--proxy-cacert", pki_.ca_cert.string(),
        "-o",  body.string(), "-w",      "%{http_code}"};
    if (!headers.empty()) argv.insert(argv.end(), {"-D", headers.string()});
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back(url);
    return run_program(argv);
  }

  // The /metrics sample of `family` whose labels include every one of `labels` (each
  // name="value"), polled until it reads `want` or 10 s pass; "absent" when none shows.
  std::string tls_metric(const std::string& family, const std::vector<std::string>& labels,
                         const std::string& want) {
    const std::uint16_t port = admin_port();
    if (port == 0) return "no admin port";
    HttpClient admin({.host = "127.0.0.1", .port = port, .reuse_connection = false});
    std::string got;
    for (int i = 0; i < 200 && got != want; ++i) {
      if (i > 0) std::this_thread::sleep_for(50ms);
      auto metrics = admin.send({.target = "/metrics"});
      if (!metrics.ok()) {
        got = "no answer: " + metrics.error().message();
        continue;
      }
      got = "absent";
      for (const auto& [name, value] : metric_samples(metrics->body)) {
        if (!name.starts_with(family + "{")) continue;
        bool all = true;
        for (const auto& label : labels) all = all && name.find(label) != std::string::npos;
        if (all) got = value;
      }
    }
    return got;
  }

  std::string handshakes(const std::string& result, const std::string& want) {
    return tls_metric("sumcache_tls_handshakes_total",
                      {R"(listener=")" + listener() + "\"", R"(result=")" + result + "\""}, want);
  }

  std::string reloads(const std::string& result, const std::string& want) {
    return tls_metric("sumcache_tls_reloads_total", {R"(result=")" + result + "\""}, want);
  }

  // The expiry sample of `certificate_file` on this listener as a number, polled until it
  // reads `not_after`; NaN when it shows none. Polled for the daemon's own rendering of a
  // double (to_chars, shortest), compared as a number: 1.8e+09 is 1800000000.
  // `certificate_file` as the config names it: the label holds the path the loader made of it.
  double expiry(const std::string& certificate_file, std::int64_t not_after) {
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, static_cast<double>(not_after)).ptr;
    const std::string got = tls_metric(
        "sumcache_tls_certificate_expiry_timestamp_seconds",
        {R"(listener=")" + listener() + "\"",
         R"(certificate=")" + (config_path_.parent_path() / certificate_file).string() + "\""},
        std::string(text, end));
    return got.find_first_of("0123456789") == std::string::npos ? std::nan("") : std::stod(got);
  }

  bool sighup() { return ::kill(daemon_->pid(), SIGHUP) == 0; }

  TestPki pki_;
};

TEST_F(TlsListener, SniChoosesTheCertificateThatNamesTheServerName) {
  issue("a", {"a.test"});
  issue("b", {"b.test"});
  issue("wild", {"*.wild.test"});
  ASSERT_TRUE(start_tls(R"({"certificates": [)" + certificate_json("a") + ", " +
                        certificate_json("b") + ", " + certificate_json("wild") + "]}"));
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-servername", "b.test"}, "CN = b.test"},
      {{"-servername", "a.test"}, "CN = a.test"},
      {{"-noservername"}, "CN = a.test"},                    // the first is the default
      {{"-servername", "other.test"}, "CN = a.test"},        // no certificate names it
      {{"-servername", "x.wild.test"}, "CN = *.wild.test"},  // one label under the wildcard
      {{"-servername", "y.x.wild.test"}, "CN = a.test"},     // two labels: not the wildcard
      {{"-servername", "wild.test"}, "CN = a.test"},         // none: not the wildcard either
  };
  for (const auto& [options, subject] : cases) {
    const Finished r = s_client(options);
    EXPECT_EQ(r.code, 0) << options.back() << "\n" << r.out << r.err;
    EXPECT_NE(line_after(r.out, "subject=").find(subject), std::string::npos)
        << options.back() << " wants " << subject << "\n"
        << r.out;
    EXPECT_NE(r.out.find("Verify return code: 0 (ok)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("HTTP/1.1 200"), std::string::npos) << r.out;
  }
}

TEST_F(TlsListener, Tls12And13AreAcceptedAndOlderVersionsRefused) {
  ASSERT_TRUE(start_tls(R"({"certificates": [)" + certificate_json("server") + "]}"));
  for (const char* old : {"-tls1", "-tls1_1"}) {
    // SECLEVEL=0 lets this client offer the old version; the daemon must be what refuses.
    const Finished r = s_client({old, "-cipher", "DEFAULT@SECLEVEL=0"});
    EXPECT_NE(r.code, 0) << old << "\n" << r.out << r.err;
    EXPECT_EQ(r.out.find("HTTP/1.1 200"), std::string::npos) << old << "\n" << r.out;
    EXPECT_EQ(r.err.find("no protocols available"), std::string::npos)
        << old << ": the client never offered it\n"
        << r.err;
  }
  // The refusals came from the daemon's side of a handshake.
  EXPECT_EQ(handshakes("failed", "2"), "2");
  for (const auto& [flag, version] :
       {std::pair{"-tls1_2", "TLSv1.2"}, std::pair{"-tls1_3", "TLSv1.3"}}) {
    const Finished r = s_client({flag});
    EXPECT_EQ(r.code, 0) << version << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find(std::string("New, ") + version + ","), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("HTTP/1.1 200"), std::string::npos) << r.out;
  }
  EXPECT_EQ(handshakes("ok", "2"), "2");
}

TEST_F(TlsListener, MinVersionThirteenRefusesTls12) {
  ASSERT_TRUE(start_tls(R"({"certificates": [)" + certificate_json("server") +
                        R"(], "min_version": "1.3"})"));
  EXPECT_NE(s_client({"-tls1_2"}).code, 0);
  const Finished r = s_client({"-tls1_3"});
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("New, TLSv1.3,"), std::string::npos) << r.out;
}

TEST_F(TlsListener, ASecondConnectionResumesTheSessionFromTheServersCache) {
  ASSERT_TRUE(start_tls(R"({"certificates": [)" + certificate_json("server") + "]}"));
  // TLS 1.2 without tickets on the client's side: only the server's session cache resumes.
  const std::vector<std::pair<std::string, std::vector<std::string>>> versions = {
      {"TLSv1.2", {"-tls1_2", "-no_ticket"}}, {"TLSv1.3", {"-tls1_3"}}};
  for (const auto& [version, flags] : versions) {
    const auto session = work_.path() / (version + ".session");
    auto first_options = flags;
    first_options.insert(first_options.end(), {"-sess_out", session.string()});
    const Finished first = s_client(first_options);
    ASSERT_EQ(first.code, 0) << version << "\n" << first.out << first.err;
    EXPECT_NE(first.out.find("New, " + version + ","), std::string::npos) << first.out;
    ASSERT_TRUE(std::filesystem::exists(session)) << version << ": no session to resume";

    auto second_options = flags;
    second_options.insert(second_options.end(), {"-sess_in", session.string()});
    const Finished second = s_client(second_options);
    EXPECT_EQ(second.code, 0) << version << "\n" << second.out << second.err;
    EXPECT_NE(second.out.find("Reused, " + version + ","), std::string::npos) << version << "\n"
                                                                              << second.out;
  }
}

TEST_F(TlsListener, ForwardProxyOverTlsMissesHitsAndTunnelsTheSameBytes) {
  ASSERT_TRUE(
      start_tls(R"({"certificates": [)" + certificate_json("server") + "]}",
                R"("forward": {"connect_ports": [)" + std::to_string(origin_.port()) + "]},"));
  const std::string url = origin_url("/obj/over-tls?size=300000&max_age=600");
  const auto direct = work_.path() / "direct.bin";
  const Finished origin_run = run_program({kCurl, "-sS", "--noproxy", "*", "-o", direct.string(), url});
  ASSERT_EQ(origin_run.code, 0) << origin_run.err;
  const std::string expected = read_file(direct);
  ASSERT_EQ(expected.size(), 300000U);

  for (const char* cache : {"miss", "hit"}) {
    const auto body = work_.path() / (std::string(cache) + ".bin");
    const auto headers = work_.path() / (std::string(cache) + ".headers");
    const Finished r = curl_via_proxy(url, body, {}, headers);
    ASSERT_EQ(r.code, 0) << cache << ": " << r.err << daemon_log();
    EXPECT_EQ(r.out, "200") << cache;
    EXPECT_NE(lowercase(read_file(headers)).find("x-cache: " + std::string(cache)),
              std::string::npos)
        << cache << "\n"
        << read_file(headers);
    EXPECT_TRUE(read_file(body) == expected) << cache << ": the body differs";
  }

  const auto tunneled = work_.path() / "tunnel.bin";
  const auto tunnel_headers = work_.path() / "tunnel.headers";
  const Finished tunnel = curl_via_proxy(url, tunneled, {"--proxytunnel"}, tunnel_headers);
  ASSERT_EQ(tunnel.code, 0) << tunnel.err << daemon_log();
  EXPECT_EQ(tunnel.out, "200");
  // The CONNECT's 200, then the origin's own response, which the proxy did not touch.
  const std::string heads = read_file(tunnel_headers);
  EXPECT_EQ(heads.rfind("HTTP/1.1 200", 0), 0U) << heads;
  EXPECT_NE(heads.find("HTTP/1.1 200", 1), std::string::npos) << heads;
  EXPECT_EQ(lowercase(heads).find("x-cache:"), std::string::npos) << heads;
  EXPECT_TRUE(read_file(tunneled) == expected) << "the tunneled body differs";
}

TEST_F(TlsListener, PlainHttpOnTheTlsPortGets400AndTheConnectionCloses) {
  ASSERT_TRUE(start_tls(R"({"certificates": [)" + certificate_json("server") + "]}"));
  const auto start = std::chrono::steady_clock::now();
  // No "Connection: close": the daemon must close by itself.
  auto reply = raw_exchange(
      "127.0.0.1", port_,
      "GET " + origin_url("/obj/plain?size=5") + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 10s);
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(reply.ok()) << reply.error().message();
  EXPECT_TRUE(reply->peer_closed) << "still open after 10 s:\n" << reply->data;
  EXPECT_LT(took, 5s);
  EXPECT_EQ(reply->data.rfind("HTTP/1.1 400 Bad Request\r\n", 0), 0U) << reply->data;
  EXPECT_NE(reply->data.find("400 Bad Request: this port speaks TLS (use https://)"),
            std::string::npos)
      << reply->data;
  EXPECT_EQ(handshakes("plain_http", "1"), "1");

  // curl, told the proxy is plain, sees the same answer.
  const Finished r = run_program({kCurl, "-sS", "--proxy", "http://" + listener(), "-o", "/dev/null", "-w",
                          "%{http_code}", origin_url("/obj/plain?size=5")});
  EXPECT_EQ(r.out, "400") << r.err;
  EXPECT_EQ(handshakes("plain_http", "2"), "2");
}

// A client that connects and says nothing, or starts a handshake and stalls, is closed at
// limits.client_request_timeout_ms and counted as a timeout; the listener goes on serving.
TEST_F(TlsListener, SilentAndStalledHandshakesEndAtTheRequestTimeout) {
  ASSERT_TRUE(start_tls(R"({"certificates": [)" + certificate_json("server") + "]}",
                        R"("limits": {"client_request_timeout_ms": 300},)"));
  auto silent = raw_exchange("127.0.0.1", port_, "", 5s);
  ASSERT_TRUE(silent.ok()) << silent.error().message();
  EXPECT_TRUE(silent->peer_closed) << "still open after 5 s";
  // A TLS record header announcing a ClientHello whose bytes never come.
  auto stalled = raw_exchange("127.0.0.1", port_, std::string("\x16\x03\x01\x02\x00", 5), 5s);
  ASSERT_TRUE(stalled.ok()) << stalled.error().message();
  EXPECT_TRUE(stalled->peer_closed) << "still open after 5 s";
  EXPECT_EQ(handshakes("timeout", "2"), "2");
  EXPECT_EQ(handshakes("ok", "0"), "0");
  const Finished after = s_client({});
  EXPECT_NE(after.out.find("HTTP/1.1 200"), std::string::npos) << after.out << after.err;
}

TEST_F(TlsListener, SighupSwapsTheCertificateWhileADownloadRuns) {
  const IssuedCertificate before = issue("site", {"localhost"});
  ASSERT_TRUE(start_tls(R"({"certificates": [)" + certificate_json("site") + "]}"));
  const std::string old_pem = read_file(before.cert);
  const Finished first = s_client({});
  ASSERT_EQ(leaf_pem(first.out), old_pem) << first.out << first.err;

  // 64 MiB at 4 MiB/s: about 16 s, so it is still running across the reload.
  const auto body = work_.path() / "large.bin";
  DaemonProcess download;
  ASSERT_FALSE(download.start(
      kCurl, {"-sS", "--proxy", proxy_url(), "--proxy-cacert", pki_.ca_cert.string(),
              "--limit-rate", "4M", "-o", body.string(), "-w", "%{http_code} %{size_download}",
              origin_url("/obj/large?size=" + std::to_string(kLargeBytes))}));
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  std::error_code ec;
  while (std::filesystem::file_size(body, ec) < (std::uint64_t{1} << 20) &&
         std::chrono::steady_clock::now() < deadline && download.running()) {
    std::this_thread::sleep_for(50ms);
  }
  ASSERT_GE(std::filesystem::file_size(body, ec), std::uint64_t{1} << 20)
      << "the download did not start\n"
      << download.output(Output::err) << daemon_log();

  // Same files, new key, serial and validity.
  const IssuedCertificate after = issue("site", {"localhost"}, 2 * kDay);
  const std::string new_pem = read_file(after.cert);
  ASSERT_NE(new_pem, old_pem);
  ASSERT_TRUE(sighup());
  ASSERT_EQ(reloads("ok", "1"), "1") << daemon_log();
  const Finished second = s_client({});
  EXPECT_EQ(second.code, 0) << second.out << second.err;
  EXPECT_EQ(leaf_pem(second.out), new_pem) << second.out;
  EXPECT_EQ(expiry("site.pem", after.not_after), static_cast<double>(after.not_after));
  EXPECT_TRUE(download.running()) << "the download ended before the reload: slow it down";

  const auto exit = download.stop(0, 120s);
  ASSERT_TRUE(exit) << "the download did not end in 120 s";
  EXPECT_EQ(exit->code, 0) << download.output(Output::err);
  EXPECT_EQ(download.output(Output::out), "200 " + std::to_string(kLargeBytes));
  EXPECT_EQ(std::filesystem::file_size(body), kLargeBytes);
}

TEST_F(TlsListener, ACertificateThatFailsToLoadOnSighupLeavesTheOldOneInPlace) {
  const IssuedCertificate site = issue("site", {"localhost"});
  ASSERT_TRUE(start_tls(R"({"certificates": [)" + certificate_json("site") + "]}"));
  const std::string old_pem = read_file(site.cert);

  std::ofstream(site.cert, std::ios::trunc) << "not a certificate\n";
  ASSERT_TRUE(sighup());
  EXPECT_TRUE(daemon_->wait_for_line("keeping the certificates loaded before", 10s, Output::err))
      << daemon_log();
  EXPECT_EQ(reloads("failed", "1"), "1");
  const Finished broken = s_client({});
  EXPECT_EQ(broken.code, 0) << broken.out << broken.err;
  EXPECT_EQ(leaf_pem(broken.out), old_pem) << broken.out;

  // A good certificate whose key is not the one in key_file fails the same way.
  const IssuedCertificate other = issue("other", {"localhost"});
  std::filesystem::copy_file(other.cert, site.cert,
                             std::filesystem::copy_options::overwrite_existing);
  ASSERT_TRUE(sighup());
  EXPECT_EQ(reloads("failed", "2"), "2") << daemon_log();
  const Finished mismatched = s_client({});
  EXPECT_EQ(mismatched.code, 0) << mismatched.out << mismatched.err;
  EXPECT_EQ(leaf_pem(mismatched.out), old_pem) << mismatched.out;
}

TEST_F(TlsListener, ExpiryMetricIsEachCertificatesNotAfter) {
  const IssuedCertificate a = issue("a", {"a.test"});
  const IssuedCertificate b = issue("b", {"b.test"}, 30 * kDay);
  ASSERT_TRUE(start_tls(R"({"certificates": [)" + certificate_json("a") + ", " +
                        certificate_json("b") + "]}"));
  // What the certificate itself says, as openssl reads it.
  const Finished enddate = run_program({kOpenssl, "x509", "-enddate", "-noout", "-in", b.cert.string()});
  ASSERT_EQ(enddate.code, 0) << enddate.err;
  std::tm tm{};
  std::istringstream(line_after(enddate.out, "notAfter=")) >>
      std::get_time(&tm, "%b %d %H:%M:%S %Y");
  EXPECT_EQ(static_cast<std::int64_t>(::timegm(&tm)), b.not_after) << enddate.out;

  EXPECT_EQ(expiry("a.pem", a.not_after), static_cast<double>(a.not_after));
  EXPECT_EQ(expiry("b.pem", b.not_after), static_cast<double>(b.not_after));
}

// ocsp_file: the response made by `openssl ocsp` (the test CA as its own responder) is
// stapled to a handshake that asks for one (status_request), and only to such a one.
TEST_F(TlsListener, AnOcspResponseIsStapledWhenTheClientAsks) {
  const IssuedCertificate site = issue("ocsp-site", {"localhost"});
  std::ofstream(work_.path() / "index.txt").flush();  // no entry: the status is "unknown"
  const Finished made =
      run_program({kOpenssl, "ocsp", "-index", (work_.path() / "index.txt").string(), "-CA",
           pki_.ca_cert.string(), "-rsigner", pki_.ca_cert.string(), "-rkey", pki_.ca_key.string(),
           "-issuer", pki_.ca_cert.string(), "-cert", site.cert.string(), "-ndays", "1", "-respout",
           (work_.path() / "ocsp-site.der").string()});
  ASSERT_EQ(made.code, 0) << made.out << made.err;
  ASSERT_TRUE(start_tls(
      R"({"certificates": [{"cert_file": "ocsp-site.pem", "key_file": "ocsp-site.key",
                            "ocsp_file": "ocsp-site.der"}]})"));
  const Finished asked = s_client({"-servername", "localhost", "-status"});
  EXPECT_NE(asked.out.find("OCSP Response Status: successful"), std::string::npos) << asked.out;
  EXPECT_NE(asked.out.find("Cert Status: unknown"), std::string::npos) << asked.out;
  const Finished not_asked = s_client({"-servername", "localhost"});
  EXPECT_EQ(not_asked.out.find("OCSP Response Status"), std::string::npos) << not_asked.out;
  EXPECT_NE(not_asked.out.find("HTTP/1.1 200"), std::string::npos) << not_asked.out;
}

TEST_F(TlsListener, VerifyClientOnWantsACertificateFromTheClientCa) {
  ASSERT_TRUE(start_tls(R"({"certificates": [)" + certificate_json("server") +
                        R"(], "verify_client": "on", "client_ca_file": "ca.pem"})"));
  const IssuedCertificate client =
      issue_client_certificate(pki_, work_.path(), "client", "test client", kDay);
  TempDir stranger_dir;
  const TestPki stranger_pki = make_test_pki(stranger_dir.path());
  const IssuedCertificate stranger =
      issue_client_certificate(stranger_pki, stranger_dir.path(), "client", "stranger", kDay);
  const std::string url = origin_url("/obj/mtls?size=10");
  const auto body = work_.path() / "mtls.bin";

  const Finished without = curl_via_proxy(url, body);
  EXPECT_NE(without.code, 0) << without.out;
  const Finished wrong_ca = curl_via_proxy(
      url, body, {"--proxy-cert", stranger.cert.string(), "--proxy-key", stranger.key.string()});
  EXPECT_NE(wrong_ca.code, 0) << wrong_ca.out;
  const Finished with = curl_via_proxy(
      url, body, {"--proxy-cert", client.cert.string(), "--proxy-key", client.key.string()});
  EXPECT_EQ(with.code, 0) << with.err << daemon_log();
  EXPECT_EQ(with.out, "200");
  EXPECT_EQ(read_file(body).size(), 10U);
}

TEST_F(TlsListener, VerifyClientOptionalTakesClientsWithoutACertificate) {
  ASSERT_TRUE(start_tls(R"({"certificates": [)" + certificate_json("server") +
                        R"(], "verify_client": "optional", "client_ca_file": "ca.pem"})"));
  const IssuedCertificate client =
      issue_client_certificate(pki_, work_.path(), "client", "test client", kDay);
  const auto body = work_.path() / "optional.bin";
  const std::string url = origin_url("/obj/optional?size=10");
  EXPECT_EQ(curl_via_proxy(url, body).out, "200");
  EXPECT_EQ(
      curl_via_proxy(url, body,
                     {"--proxy-cert", client.cert.string(), "--proxy-key", client.key.string()})
          .out,
      "200");
}

TEST_F(TlsListener, TheAdminEndpointSpeaksTlsWithAdminTls) {
  ASSERT_TRUE(start_proxy({.admin_json = R"({"address": "127.0.0.1", "port": 0, "tls": {
                             "certificates": [)" +
                                         certificate_json("server") + "]}}"}));
  const std::uint16_t admin = admin_port();
  ASSERT_NE(admin, 0U) << daemon_log();
  const std::string base = "127.0.0.1:" + std::to_string(admin);
  const auto body = work_.path() / "metrics.txt";
  const Finished metrics =
      run_program({kCurl, "-sS", "--cacert", pki_.ca_cert.string(), "-o", body.string(), "-w",
           "%{http_code}", "https://" + base + "/metrics"});
  EXPECT_EQ(metrics.code, 0) << metrics.err;
  EXPECT_EQ(metrics.out, "200");
  EXPECT_NE(read_file(body).find("sumcache_tls_handshakes_total"), std::string::npos)
      << read_file(body);
  // Not trusted without the test CA: the system store does not have it.
  EXPECT_NE(run_program({kCurl, "-sS", "-o", "/dev/null", "https://" + base + "/metrics"}).code, 0);

  const Finished plain =
      run_program({kCurl, "-sS", "-o", body.string(), "-w", "%{http_code}", "http://" + base + "/metrics"});
  EXPECT_EQ(plain.out, "400") << plain.err;
  EXPECT_NE(read_file(body).find("this port speaks TLS (use https://)"), std::string::npos)
      << read_file(body);
}

}  // namespace
}  // namespace sumcache::testing
