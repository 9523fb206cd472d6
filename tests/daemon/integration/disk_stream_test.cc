// Objects larger than the memory tier: stored on disk only while they stream
// to the first client, then served to many clients at once from the file in
// bounded chunks read off the worker thread (docs/store.md, "Disk-only fills"
// and "Disk hits"). Real daemon, real origin, raw sockets so that a 64 MiB
// body is checked byte by byte without being held.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fstream>
#include <future>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/daemon_process.h"
#include "tests/support/deterministic_body.h"
#include "tests/support/http_client.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_origin.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::uint64_t kLarge = 64ULL << 20;  // far above the 4 MiB memory tier
const std::string kLargePath = "/obj/large";

// A blocking loopback connection with a receive and send timeout on every call.
class Conn {
 public:
  Conn(std::uint16_t port, std::chrono::milliseconds timeout) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{static_cast<time_t>(timeout.count() / 1000),
               static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ok_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  }
  ~Conn() { ::close(fd_); }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  // A small receive buffer, set before the request: a client that reads slowly.
  void small_receive_buffer() {
    int size = 16 * 1024;
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }
  bool send_all(std::string_view data) {
    while (ok_ && !data.empty()) {
      const ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
      if (n <= 0) return ok_ = false;
      data.remove_prefix(static_cast<std::size_t>(n));
    }
    return ok_;
  }
  // Up to out.size() bytes; 0 on close, timeout or error.
  std::size_t recv_some(std::span<char> out) {
    if (!ok_) return 0;
    const ssize_t n = ::recv(fd_, out.data(), out.size(), 0);
    if (n <= 0) ok_ = false;
    return n > 0 ? static_cast<std::size_t>(n) : 0;
  }
  bool ok() const { return ok_; }

 private:
  int fd_ = -1;
  bool ok_ = false;
};

struct Streamed {
  std::string head;  // status line and fields
  std::uint64_t body_bytes = 0;
  std::optional<std::uint64_t> first_mismatch;
  bool complete = false;
};

// The origin's bytes for kLargePath, made once: comparing against them is
// cheaper than regenerating them for each of 17 clients.
const std::string& large_body() {
  static const std::string body = deterministic_body(kLargePath, "", kLarge);
  return body;
}

// GET `target` and compare the body, as it comes, with large_body(): the
// clients never hold a body.
Streamed get_streamed(std::uint16_t port, const std::string& target, std::uint64_t size) {
  const std::string& expected = large_body();
  Streamed out;
  Conn conn(port, 30s);
  if (!conn.send_all("GET " + target +
                     " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")) {
    return out;
  }
  std::vector<char> buf(256 * 1024);
  std::string pending;
  // The head, bounded.
  while (out.head.empty() && pending.size() < 64 * 1024) {
    const std::size_t n = conn.recv_some(buf);
    if (n == 0) return out;
    pending.append(buf.data(), n);
    if (const auto end = pending.find("\r\n\r\n"); end != std::string::npos) {
      out.head = pending.substr(0, end + 2);
      pending.erase(0, end + 4);
    }
  }
  auto check = [&](const char* data, std::size_t n) {
    if (out.first_mismatch || out.body_bytes + n > size) {
      out.body_bytes += n;
      return;
    }
    if (std::memcmp(data, expected.data() + out.body_bytes, n) != 0) {
      out.first_mismatch = out.body_bytes;
    }
    out.body_bytes += n;
  };
  check(pending.data(), pending.size());
  for (int reads = 0; out.body_bytes < size && reads < 10'000'000; ++reads) {
    const std::size_t n = conn.recv_some(buf);
    if (n == 0) break;
    check(buf.data(), n);
  }
  out.complete = out.body_bytes == size && !out.first_mismatch;
  return out;
}

std::uint64_t rss_bytes(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

class DiskStream : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(origin_.start()); }
  void TearDown() override {
    if (daemon_) {
      auto status = daemon_->stop(SIGTERM, 15s);
      EXPECT_TRUE(status.has_value());
      if (status) {
        EXPECT_EQ(status->code, 0) << log();
      }
    }
  }

  bool start(int workers) {
    large_body();  // before any client times its reads
    const std::string config = R"({
      "node": {"id": "disk-stream"},
      "mode": "forward",
      "workers": )" + std::to_string(workers) +
                               R"(,
      "listen": [{"address": "127.0.0.1", "port": 0}],
      "admin": {"enabled": true, "address": "127.0.0.1", "port": 0},
      "cache": {"disk": {"path": ")" +
                               (work_.path() / "cache").string() + R"(",
                         "max_bytes": "512MiB"},
                "memory": {"max_bytes": "4MiB"}, "max_object_bytes": "256MiB"},
      "log": {"access_log": ")" +
                               (work_.path() / "access.log").string() + R"("}
    })";
    const auto path = work_.path() / "sumcache.json";
    std::ofstream(path) << config;
    daemon_ = std::make_unique<DaemonProcess>();
    if (daemon_->start(SUMCACHED_PATH, {"--config", path.string()})) return false;
    auto proxy =
        daemon_->wait_for_line("proxy listening on 127\\.0\\.0\\.1:([0-9]+)", 30s, Output::err);
    auto admin =
        daemon_->wait_for_line("admin listening on 127\\.0\\.0\\.1:([0-9]+)", 10s, Output::err);
    if (!proxy || !admin) {
      ADD_FAILURE() << "sumcached did not start:\n" << log();
      return false;
    }
    port_ = static_cast<std::uint16_t>(std::stoi((*proxy)[1]));
    admin_port_ = static_cast<std::uint16_t>(std::stoi((*admin)[1]));
    return true;
  }
  std::string log() const { return daemon_ ? daemon_->output(Output::err) : ""; }
  std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(origin_.port()) + path;
  }
  std::string large_url() const {
    return url(kLargePath + "?max_age=600&size=" + std::to_string(kLarge));
  }
  ClientResponse get(const std::string& path) {
    HttpClient client({.host = "127.0.0.1", .port = port_, .reuse_connection = false});
    auto r = client.send({.method = "GET", .target = url(path)});
    EXPECT_TRUE(r.ok()) << path;
    return r.ok() ? std::move(r).value() : ClientResponse{};
  }
  std::string metrics() {
    HttpClient client({.host = "127.0.0.1", .port = admin_port_, .reuse_connection = false});
    auto r = client.send({.method = "GET", .target = "/metrics"});
    return r.ok() ? r->body : "";
  }
  // Fills the cache with the large object through one client (a MISS that
  // goes to disk as it streams), then waits until it is a disk hit.
  void cache_large_object() {
    const Streamed first = get_streamed(port_, large_url(), kLarge);
    ASSERT_TRUE(first.complete) << first.head << " got " << first.body_bytes;
    EXPECT_NE(first.head.find("X-Cache: MISS"), std::string::npos) << first.head;
    for (int i = 0; i < 100; ++i) {
      Conn conn(port_, 5s);
      ASSERT_TRUE(conn.send_all("HEAD " + large_url() + " HTTP/1.1\r\nHost: x\r\n\r\n"));
      std::vector<char> buf(4096);
      const std::size_t n = conn.recv_some(buf);
      if (std::string(buf.data(), n).find("X-Cache: HIT") != std::string::npos) return;
      std::this_thread::sleep_for(50ms);
    }
    FAIL() << "the large object never became a hit:\n" << log();
  }

  TestOrigin origin_;
  TempDir work_;
  std::unique_ptr<DaemonProcess> daemon_;
  std::uint16_t port_ = 0;
  std::uint16_t admin_port_ = 0;
};

TEST_F(DiskStream, ALargeObjectServedToSixteenClientsAtOnceBarelyRaisesTheRss) {
  ASSERT_TRUE(start(2));
  cache_large_object();
  EXPECT_NE(metrics().find("sumcache_store_disk_fills_total 1"), std::string::npos);
  const pid_t pid = daemon_->pid();
  const std::uint64_t before = rss_bytes(pid);
  ASSERT_GT(before, 0U);
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> peak{before};
  std::thread sampler([&] {
    for (int i = 0; i < 6000 && !done.load(); ++i) {
      peak.store(std::max(peak.load(), rss_bytes(pid)));
      std::this_thread::sleep_for(10ms);
    }
  });
  std::vector<std::future<Streamed>> clients;
  for (int i = 0; i < 16; ++i) {
    clients.push_back(
        std::async(std::launch::async, [&] { return get_streamed(port_, large_url(), kLarge); }));
  }
  for (auto& c : clients) {
    const Streamed s = c.get();
    EXPECT_TRUE(s.complete) << s.head << " got " << s.body_bytes << " bytes, first mismatch at "
                            << s.first_mismatch.value_or(0);
    EXPECT_NE(s.head.find("X-Cache: HIT"), std::string::npos) << s.head;
  }
  done = true;
  sampler.join();
  RecordProperty("rss_before_bytes", std::to_string(before));
  RecordProperty("rss_peak_bytes", std::to_string(peak.load()));
  // 16 connections hold one 256 KiB chunk each (4 MiB); the allocator and the
  // sanitizers keep some. A body held whole would be 64 MiB per client.
  EXPECT_LT(peak.load() - before, 24ULL << 20) << "RSS from " << before << " to " << peak.load();
  // The memory tier never held it.
  const std::string m = metrics();
  EXPECT_NE(m.find("sumcache_store_objects{tier=\"memory\"} 0"), std::string::npos) << m;
  EXPECT_NE(m.find("sumcache_store_disk_stream_errors_total 0"), std::string::npos) << m;
}

TEST_F(DiskStream, AMemoryHitOnTheSameWorkerIsPromptWhileASlowClientHoldsALargeDiskHit) {
  ASSERT_TRUE(start(1));
  cache_large_object();
  ASSERT_EQ(get("/obj/small?max_age=600&size=2000").status, 200U);
  ASSERT_EQ(get("/obj/small?max_age=600&size=2000").header("X-Cache"), "HIT");
  // Slow clients: each reads a little of the large disk hit, then stops.
  std::vector<std::unique_ptr<Conn>> slow;
  for (int i = 0; i < 4; ++i) {
    auto c = std::make_unique<Conn>(port_, 10s);
    c->small_receive_buffer();
    ASSERT_TRUE(c->send_all("GET " + large_url() + " HTTP/1.1\r\nHost: x\r\n\r\n"));
    std::vector<char> buf(64 * 1024);
    ASSERT_GT(c->recv_some(buf), 0U);
    slow.push_back(std::move(c));
  }
  std::chrono::steady_clock::duration worst{};
  for (int i = 0; i < 20; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const ClientResponse r = get("/obj/small?max_age=600&size=2000");
    worst = std::max(worst, std::chrono::steady_clock::now() - t0);
    EXPECT_EQ(r.status, 200U);
    EXPECT_EQ(r.body, deterministic_body("/obj/small", "", 2000));
  }
  EXPECT_LT(worst, 250ms) << "a memory hit waited "
                          << std::chrono::duration_cast<std::chrono::milliseconds>(worst).count()
                          << " ms behind the disk hits";
}

// A file damaged after it was stored: the client that streams it gets the
// head and is cut short (the checksum fails at the end); the cut is counted,
// logged, and the file removed, so the next request is a miss.
TEST_F(DiskStream, ADamagedFileCutsTheStreamShortAndIsRemoved) {
  ASSERT_TRUE(start(1));
  cache_large_object();
  std::filesystem::path file;
  for (const auto& e : std::filesystem::recursive_directory_iterator(work_.path() / "cache")) {
    if (e.is_regular_file() && e.file_size() > kLarge) file = e.path();
  }
  ASSERT_FALSE(file.empty());
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(std::filesystem::file_size(file) - 1000));
    f.put('#');
  }
  const Streamed cut = get_streamed(port_, large_url(), kLarge);
  EXPECT_NE(cut.head.find("X-Cache: HIT"), std::string::npos) << cut.head;
  EXPECT_FALSE(cut.complete);
  EXPECT_LT(cut.body_bytes, kLarge);
  const std::string m = metrics();
  EXPECT_NE(m.find("sumcache_store_disk_stream_errors_total 1"), std::string::npos) << m;
  EXPECT_NE(log().find("cut short: object file checksum mismatch: damaged"), std::string::npos)
      << log();
  const Streamed again = get_streamed(port_, large_url(), kLarge);
  EXPECT_TRUE(again.complete);
  EXPECT_NE(again.head.find("X-Cache: MISS"), std::string::npos) << again.head;
}

}  // namespace
}  // namespace sumcache::testing
