// Strangers claiming a peer's id on the peer listener (issue 27, item 3;
// docs/peers.md, "What the peer listener accepts"): 40 slow connections
// claiming node-b on node-a's peer listener, with no Sumcache-Channel-Auth,
// with a forged one, or never finishing their head, while the real node-b
// purges and pushes its summary. The head is verified before any per-peer
// slot is given, and an unverified connection gives way to a new one at the
// connection cap: node-b's purge is acknowledged within the purge's wait and
// its summaries keep landing. Two real nodes, raw sockets on loopback.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/daemon/integration/cluster_fixture.h"
#include "tests/support/channel_head.h"

namespace sumcache::testing {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using Json = nlohmann::json;

enum class Claim { no_auth, forged_auth, slow_head };

std::string claim_name(const ::testing::TestParamInfo<Claim>& info) {
  switch (info.param) {
    case Claim::no_auth:
      return "WithoutAuth";
    case Claim::forged_auth:
      return "WithAForgedHead";
    case Claim::slow_head:
      return "WithAHeadNeverFinished";
  }
  return "?";
}

// Holds `count` connections to 127.0.0.1:port claiming node-b, half on each
// route, each sending one byte of its body (or its head) every 100 ms and
// reopened as soon as the node closes it, until stopped.
class SlotHolder {
 public:
  SlotHolder(std::uint16_t port, Claim claim, int count)
      : port_(port), claim_(claim), fds_(static_cast<std::size_t>(count), -1) {
    thread_ = std::thread([this] { run(); });
  }
  ~SlotHolder() {
    stop_ = true;
    thread_.join();
    for (int fd : fds_) {
      if (fd >= 0) ::close(fd);
    }
  }
  std::uint64_t opened() const { return opened_; }

 private:
  std::string opening(std::size_t i) const {
    const std::string path = i % 2 == 0 ? "/sumcache/v1/invalidations" : "/sumcache/v1/summary";
    std::string head = "POST " + path + " HTTP/1.1\r\nHost: peer\r\n";
    if (claim_ == Claim::slow_head) return head;
    head +=
        "X-Sumcache-Node: node-b\r\nContent-Type: application/octet-stream\r\n"
        "Content-Length: 2000\r\n";
    if (claim_ == Claim::forged_auth) {
      // The grammar right, the MAC made with the wrong secret.
      head +=
          "Sumcache-Channel-Auth: " +
          channel_auth({.path = path, .length = 2000, .secret = "not-the-cluster-secret-at-all"}) +
          "\r\n";
    }
    return head + "\r\n";
  }

  bool open(std::size_t i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(port_);
    ::inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
      ::close(fd);
      return false;
    }
    const std::string first = opening(i);
    ::send(fd, first.data(), first.size(), MSG_NOSIGNAL);
    fds_[i] = fd;
    ++opened_;
    return true;
  }

  void run() {
    while (!stop_) {
      for (std::size_t i = 0; i < fds_.size() && !stop_; ++i) {
        int& fd = fds_[i];
        if (fd < 0 && !open(i)) continue;
        pollfd p{fd, POLLIN, 0};
        // Answered or closed: the slot is lost, so claim it again.
        if (::poll(&p, 1, 0) > 0) {
          ::close(fd);
          fd = -1;
          continue;
        }
        const char* trickle = claim_ == Claim::slow_head ? "X" : "\0";
        if (::send(fd, trickle, 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
          ::close(fd);
          fd = -1;
        }
      }
      std::this_thread::sleep_for(100ms);
    }
  }

  std::uint16_t port_;
  Claim claim_;
  std::vector<int> fds_;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> opened_{0};
  std::thread thread_;
};

class PeerSlotHold : public ClusterTest, public ::testing::WithParamInterface<Claim> {};

TEST_P(PeerSlotHold, TheRealPeersPurgeIsAcknowledgedAndItsSummariesLand) {
  ASSERT_TRUE(start_cluster({.nodes = 2}));
  const std::string path = "/obj/slot-hold?max_age=600&size=2000";
  ASSERT_EQ(x_cache(fetch(0, path)), "MISS");
  ASSERT_TRUE(wait_for_deliveries(1, 0, 1));

  SlotHolder holder(nodes_[0].peer_port, GetParam(), 40);
  std::this_thread::sleep_for(1500ms);  // every slot claimed, and claimed again

  const auto start = Clock::now();
  const auto purged =
      admin(1, "/purge", "POST", Json{{"url", origin_url(path)}}.dump(), /*authorized=*/true);
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  std::printf("slot hold (%s): purge answered in %lld ms, %llu attacker connections\n",
              claim_name({GetParam(), 0}).c_str(), static_cast<long long>(took.count()),
              static_cast<unsigned long long>(holder.opened()));
  const Json answer = Json::parse(purged.body, nullptr, false);
  ASSERT_FALSE(answer.is_discarded()) << purged.body;
  EXPECT_EQ(answer["nodes"]["acked"], 2) << purged.body << log_of(1);
  EXPECT_EQ(local_status(0, path), 504U) << "node-a still holds the purged URL";

  // Summaries of node-b's keep landing at node-a while the strangers stay.
  for (int i = 0; i < 3; ++i) fetch(1, "/obj/slot-hold-" + std::to_string(i) + "?max_age=600");
  const std::string line = "delivered to node-a";
  const std::size_t before = count_matches(log_of(1), line);
  const auto deadline = Clock::now() + 5s;
  while (count_matches(log_of(1), line) < before + 2 && Clock::now() < deadline) {
    fetch(1, "/obj/slot-hold-more-" + std::to_string(Clock::now().time_since_epoch().count()) +
                 "?max_age=600");
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_GE(count_matches(log_of(1), line), before + 2) << log_of(1);
}

INSTANTIATE_TEST_SUITE_P(Claims, PeerSlotHold,
                         ::testing::Values(Claim::no_auth, Claim::forged_auth, Claim::slow_head),
                         claim_name);

}  // namespace
}  // namespace sumcache::testing
