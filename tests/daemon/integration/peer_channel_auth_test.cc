// Sumcache-Channel-Auth on a real node's peer listener, and at the sender
// (docs/protocol.md, "Channel authentication"; issue 27, items 2 and 3): a
// head is taken once, within the window, by the node it names, for the length
// it declares; an answer is taken only for the request it answers. Raw
// sockets on loopback, with a deadline on every read.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "protocol/channel_auth.h"
#include "protocol/invalidation_message.h"
#include "tests/daemon/integration/cluster_fixture.h"
#include "tests/support/channel_head.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

const std::string kSecret = ClusterOptions{}.secret;

int connect_to(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Everything `fd` sends until it closes, or 3 s.
std::string read_all(int fd) {
  std::string out;
  const auto deadline = Clock::now() + 3s;
  char buf[4096];
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

// One request on a fresh connection to `port`; the whole answer.
std::string round_trip(std::uint16_t port, const std::string& request) {
  const int fd = connect_to(port);
  if (fd < 0) return "(no connection)";
  ::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
  std::string reply = read_all(fd);
  ::close(fd);
  return reply;
}

// The value of header `name` in a raw head ("" when absent).
std::string header_of(const std::string& head, const std::string& name) {
  const auto at = head.find("\r\n" + name + ": ");
  if (at == std::string::npos) return {};
  const auto from = at + name.size() + 4;
  return head.substr(from, head.find("\r\n", from) - from);
}

class PeerChannelAuth : public ClusterTest {
 protected:
  void SetUp() override {
    ClusterTest::SetUp();
    ASSERT_TRUE(start_cluster({.nodes = 2}));
    port_ = nodes_[0].peer_port;
    // A published summary, so that a GET is answered 200.
    ASSERT_TRUE(wait_for_deliveries(0, 1, 1));
  }
  std::string metric(const std::string& reason) {
    const std::string body = admin(0, "/metrics").body;
    const std::string series = "sumcache_peer_listener_refused_total{reason=\"" + reason + "\"} ";
    const auto at = body.find(series);
    return at == std::string::npos
               ? "(none)"
               : body.substr(at + series.size(), body.find('\n', at) - at - series.size());
  }
  std::string get(ChannelHeadSpec spec) {
    spec.method = "GET";
    spec.secret = kSecret;
    return round_trip(port_, channel_head(spec));
  }
  std::uint16_t port_ = 0;
};

TEST_F(PeerChannelAuth, AHeadIsTakenOnceAndItsReplayIsRefused) {
  const std::string nonce = fresh_channel_nonce();
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const std::string first = get({.time = now, .nonce = nonce});
  EXPECT_EQ(first.rfind("HTTP/1.1 200", 0), 0U) << first;
  // The same head again, byte for byte, as a capture would post it.
  const std::string again = get({.time = now, .nonce = nonce});
  EXPECT_EQ(again.rfind("HTTP/1.1 401", 0), 0U) << again;
  EXPECT_NE(again.find("nonce was seen already"), std::string::npos) << again;
  EXPECT_EQ(metric("replayed"), "1");
  EXPECT_NE(log_of(0).find("(node \"node-b\"): 401 Sumcache-Channel-Auth nonce was seen already"),
            std::string::npos)
      << log_of(0);
}

TEST_F(PeerChannelAuth, AStaleHeadIsRefused) {
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  const std::string reply = get({.time = now - 120});
  EXPECT_EQ(reply.rfind("HTTP/1.1 401", 0), 0U) << reply;
  EXPECT_NE(reply.find("too far in the past"), std::string::npos) << reply;
  EXPECT_EQ(metric("auth"), "1");
}

TEST_F(PeerChannelAuth, AHeadForAnotherReceiverIsRefused) {
  const std::string reply = get({.to = "node-c"});
  EXPECT_EQ(reply.rfind("HTTP/1.1 401", 0), 0U) << reply;
  EXPECT_NE(reply.find("signed for another node"), std::string::npos) << reply;
  EXPECT_EQ(metric("auth"), "1");
}

TEST_F(PeerChannelAuth, ALengthOtherThanTheContentLengthIsRefusedBeforeTheBody) {
  std::string head =
      channel_head({.path = "/sumcache/v1/invalidations", .length = 300, .secret = kSecret});
  head.replace(head.find("Content-Length: 300"), 19, "Content-Length: 301");
  const std::string reply =
      round_trip(port_, head);  // no body sent: the answer did not wait for it
  EXPECT_EQ(reply.rfind("HTTP/1.1 401", 0), 0U) << reply;
  EXPECT_NE(reply.find("len is not the body's length"), std::string::npos) << reply;
  EXPECT_EQ(metric("auth"), "1");
}

TEST_F(PeerChannelAuth, TheAnswerIsSignedForTheRequestsNonceAlone) {
  const std::string nonce = fresh_channel_nonce();
  const std::string reply = get({.nonce = nonce});
  ASSERT_EQ(reply.rfind("HTTP/1.1 200", 0), 0U) << reply;
  const std::string value = header_of(reply, "Sumcache-Channel-Auth");
  const std::size_t body = reply.size() - reply.find("\r\n\r\n") - 4;
  EXPECT_TRUE(
      protocol::verify_channel_answer(value, {"node-a", "node-b", nonce, 200, body}, kSecret).ok())
      << value;
  EXPECT_EQ(protocol::verify_channel_answer(
                value, {"node-a", "node-b", fresh_channel_nonce(), 200, body}, kSecret)
                .error(),
            protocol::ChannelAuthErrc::other_request);
}

// Stands in for node-b's peer listener: answers each invalidation batch with
// a genuine ack of it, its Sumcache-Channel-Auth signed for the request's
// nonce or, while `stale`, for another (an answer captured earlier).
class FakePeer {
 public:
  explicit FakePeer(std::uint16_t port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in at{};
    at.sin_family = AF_INET;
    at.sin_port = htons(port);
    ::inet_pton(AF_INET, "127.0.0.1", &at.sin_addr);
    listening_ =
        ::bind(fd_, reinterpret_cast<sockaddr*>(&at), sizeof at) == 0 && ::listen(fd_, 16) == 0;
    thread_ = std::thread([this] { run(); });
  }
  ~FakePeer() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  bool listening() const { return listening_; }
  std::atomic<bool> stale{true};
  std::atomic<int> batches{0};

 private:
  void run() {
    while (!stop_) {
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c >= 0) {
        serve(c);
        ::close(c);
      }
    }
  }
  void serve(int c) {
    std::string in;
    char buf[4096];
    const auto deadline = Clock::now() + 2s;
    std::size_t head_end = std::string::npos;
    std::size_t length = 0;
    while (Clock::now() < deadline) {
      pollfd p{c, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      const auto n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) return;
      in.append(buf, static_cast<std::size_t>(n));
      if (head_end == std::string::npos && (head_end = in.find("\r\n\r\n")) != std::string::npos) {
        const std::string cl = header_of(in.substr(0, head_end + 2), "Content-Length");
        length = cl.empty() ? 0 : std::stoul(cl);
      }
      if (head_end != std::string::npos && in.size() >= head_end + 4 + length) break;
    }
    if (head_end == std::string::npos || in.rfind("POST /sumcache/v1/invalidations", 0) != 0) {
      return;  // pushes and pulls: no answer
    }
    const std::string auth_value = header_of(in.substr(0, head_end + 2), "Sumcache-Channel-Auth");
    const auto request = protocol::parse_channel_request(auth_value);  // views into auth_value
    const auto batch = protocol::decode_invalidations(
        std::string_view(in).substr(head_end + 4, length),
        [](std::string_view) { return std::optional<std::string>(kSecret); });
    if (!request || !batch) return;
    ++batches;
    const auto ack = protocol::encode_invalidation_ack(
        {"node-b", "node-a", batch->epoch, batch->last_seq()}, kSecret);
    const std::string nonce = stale ? fresh_channel_nonce() : std::string(request->nonce);
    const std::string auth =
        protocol::sign_channel_answer({"node-b", "node-a", nonce, 200, ack->size(), {}}, kSecret);
    const std::string out =
        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
        "Content-Length: " +
        std::to_string(ack->size()) + "\r\nSumcache-Channel-Auth: " + auth +
        "\r\nConnection: close\r\n\r\n" + *ack;
    ::send(c, out.data(), out.size(), MSG_NOSIGNAL);
  }

  int fd_ = -1;
  bool listening_ = false;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

TEST_F(PeerChannelAuth, AnAckAnsweringAnotherRequestIsRefusedAtTheSender) {
  kill_node(1);
  FakePeer fake(nodes_[1].peer_port);
  ASSERT_TRUE(fake.listening());
  const std::string path = "/obj/replayed-ack?max_age=600";
  ASSERT_EQ(x_cache(fetch(0, path)), "MISS");
  const auto purged =
      admin(0, "/purge", "POST", Json{{"url", origin_url(path)}}.dump(), /*authorized=*/true);
  const Json answer = Json::parse(purged.body, nullptr, false);
  ASSERT_FALSE(answer.is_discarded()) << purged.body;
  // A genuine ack of the very batch, but signed for another request: not taken.
  EXPECT_GE(fake.batches.load(), 1);
  EXPECT_EQ(answer["nodes"]["pending"], Json::array({"node-b"})) << purged.body;
  EXPECT_NE(log_of(0).find("peer node-b: invalidations answer refused: Sumcache-Channel-Auth "
                           "answers another request"),
            std::string::npos)
      << log_of(0);
  const Json peers = Json::parse(admin(0, "/peers").body, nullptr, false);
  for (const auto& p : peers["peers"]) {
    if (p["id"] == "node-b") {
      EXPECT_GE(p.value("messages_rejected", 0), 1) << p.dump();
    }
  }
  // The same ack, signed for the request it answers: taken (so the fake is right but for the
  // nonce).
  fake.stale = false;
  const auto deadline = Clock::now() + 10s;
  bool acked = false;
  while (!acked && Clock::now() < deadline) {
    const Json now = Json::parse(admin(0, "/peers").body, nullptr, false);
    for (const auto& p : now["peers"]) {
      if (p["id"] == "node-b") acked = p["invalidations"].value("pending", 1) == 0;
    }
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(acked) << admin(0, "/peers").body << log_of(0);
}

}  // namespace
}  // namespace sumcache::testing
