// IcpAgent over real UDP sockets on 127.0.0.1: agents answering each other, and raw
// sockets standing in for silent, late, or misbehaving peers and for strangers.
#include "daemon/peer/icp_agent.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <future>
#include <thread>

#include "protocol/icp_message.h"

namespace sumcache::daemon {
namespace {

using namespace std::chrono_literals;
using protocol::IcpMessage;
using protocol::IcpOpcode;
using Bytes = std::vector<std::uint8_t>;

// Generous: a correct agent completes these queries long before; only a broken one waits.
constexpr auto kLongTimeout = 30s;

const asio::ip::address kLoopback = asio::ip::make_address("127.0.0.1");

// A port free a moment ago. Agents must know each other's ports before any binds.
std::uint16_t free_udp_port(const asio::ip::address& on = kLoopback) {
  asio::io_context io;
  udp::socket s(io, udp::endpoint(on, 0));
  return s.local_endpoint().port();
}

Bytes encode(const IcpMessage& m) { return *protocol::encode_icp(m); }

// A plain socket playing a peer or a stranger by hand.
class RawPeer {
 public:
  RawPeer() : RawPeer(udp::endpoint(kLoopback, 0)) {}
  explicit RawPeer(const udp::endpoint& bind) : socket_(io_, bind) {}
  udp::endpoint endpoint() const { return socket_.local_endpoint(); }
  void send(const Bytes& datagram, const udp::endpoint& to) {
    socket_.send_to(asio::buffer(datagram), to);
  }
  void send(const IcpMessage& m, const udp::endpoint& to) { send(encode(m), to); }
  // The next datagram, or nothing within `timeout`.
  std::optional<Bytes> receive(std::chrono::milliseconds timeout = 10s) {
    pollfd p{socket_.native_handle(), POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(timeout.count())) != 1) return std::nullopt;
    Bytes buffer(protocol::kIcpMaxDatagram + 1);
    udp::endpoint from;
    buffer.resize(socket_.receive_from(asio::buffer(buffer), from));
    return buffer;
  }
  IcpMessage receive_message(Bytes& storage) {
    auto datagram = receive();
    EXPECT_TRUE(datagram) << "no datagram came";
    storage = datagram.value_or(Bytes{});
    auto m = protocol::decode_icp(storage);
    EXPECT_TRUE(m.ok()) << m.error().message();
    return m.ok() ? *m : IcpMessage{};
  }

 private:
  asio::io_context io_;
  udp::socket socket_;
};

// Polls for a counter to settle: datagrams cross threads. Bounded, never a speed check.
template <class F>
bool eventually(F condition) {
  for (int i = 0; i < 5000 && !condition(); ++i) std::this_thread::sleep_for(1ms);
  return condition();
}

class IcpAgentTest : public ::testing::Test {
 protected:
  IcpAgentTest() : guard_(io_.get_executor()), thread_([this] { io_.run(); }) {}
  ~IcpAgentTest() override {
    agents_.clear();  // before the loop they run on stops
    guard_.reset();
    thread_.join();
  }

  static udp::endpoint at(std::uint16_t port) { return {kLoopback, port}; }

  // An agent answering HIT for the URLs `lookup` accepts, started on the test's loop.
  IcpAgent& agent(std::uint16_t port, std::vector<IcpPeer> peers,
                  std::function<bool(std::string_view)> lookup) {
    return agent_at(at(port), std::move(peers), std::move(lookup));
  }
  IcpAgent& agent_at(const udp::endpoint& bind, std::vector<IcpPeer> peers,
                     std::function<bool(std::string_view)> lookup) {
    agents_.push_back(std::make_unique<IcpAgent>(io_.get_executor(), bind, std::move(peers),
                                                 std::move(lookup), log_));
    const auto ec = agents_.back()->start();
    EXPECT_FALSE(ec) << ec.message();
    return *agents_.back();
  }

  // Runs one query on an io_context of the calling thread, as a worker would.
  static IcpQueryResult ask(IcpAgent& agent, std::string url,
                            std::chrono::milliseconds timeout = kLongTimeout,
                            std::uint64_t mask = ~0ULL) {
    asio::io_context caller;
    IcpQueryResult out;
    asio::co_spawn(caller, agent.query(std::move(url), timeout, mask),
                   [&](std::exception_ptr e, IcpQueryResult r) {
                     EXPECT_FALSE(e);
                     out = r;
                   });
    caller.run();
    return out;
  }

  static bool always(std::string_view) { return true; }
  static bool never(std::string_view) { return false; }

  Logger log_{LogLevel::warn, "-"};
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> guard_;
  std::thread thread_;
  std::vector<std::unique_ptr<IcpAgent>> agents_;
};

TEST_F(IcpAgentTest, AQueryReportsThePeerThatHit) {
  const auto q = free_udp_port(), a = free_udp_port(), b = free_udp_port();
  agent(a, {{"q", at(q)}}, never);
  agent(b, {{"q", at(q)}}, always);
  IcpAgent& querier = agent(q, {{"a", at(a)}, {"b", at(b)}}, never);

  const auto result = ask(querier, "http://example.com/x");
  EXPECT_EQ(result.hit, 1u);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.queried, 2u);
  EXPECT_GE(result.replies, 1u);
  EXPECT_EQ(querier.counters()[1].hits_received, 1u);
  EXPECT_EQ(querier.counters()[1].id, "b");
}

TEST_F(IcpAgentTest, AllMissesCompleteTheQueryWithoutWaitingForTheTimeout) {
  const auto q = free_udp_port(), a = free_udp_port(), b = free_udp_port();
  IcpAgent& peer_a = agent(a, {{"q", at(q)}}, never);
  agent(b, {{"q", at(q)}}, [](std::string_view url) { return url == "http://only-b/"; });
  IcpAgent& querier = agent(q, {{"a", at(a)}, {"b", at(b)}}, never);

  const auto result = ask(querier, "http://example.com/x");  // waiting for it: timed_out
  EXPECT_FALSE(result.hit);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.replies, 2u);
  EXPECT_EQ(querier.totals().misses_received, 2u);
  EXPECT_EQ(peer_a.counters()[0].queries_received, 1u);
  EXPECT_TRUE(eventually([&] { return peer_a.counters()[0].misses_sent == 1; }));
  EXPECT_EQ(ask(querier, "http://only-b/").hit, 1u);
}

TEST_F(IcpAgentTest, ASilentPeerMakesTheQueryTimeOut) {
  RawPeer silent;
  const auto q = free_udp_port(), a = free_udp_port();
  agent(a, {{"q", at(q)}}, never);
  IcpAgent& querier = agent(q, {{"a", at(a)}, {"silent", silent.endpoint()}}, never);

  const auto result = ask(querier, "http://example.com/x", 200ms);
  EXPECT_TRUE(result.timed_out);
  EXPECT_FALSE(result.hit);
  EXPECT_EQ(result.replies, 1u);
  EXPECT_EQ(result.queried, 2u);
  EXPECT_EQ(querier.counters()[1].unanswered, 1u);
  EXPECT_EQ(querier.counters()[0].unanswered, 0u);
  Bytes storage;
  const auto query = silent.receive_message(storage);  // it was asked, and kept quiet
  EXPECT_EQ(query.opcode, IcpOpcode::query);
  EXPECT_EQ(query.url, "http://example.com/x");
}

TEST_F(IcpAgentTest, RepliesEchoTheRequestNumberAndUrl) {
  RawPeer peer;
  const auto a = free_udp_port();
  IcpAgent& answering = agent(a, {{"raw", peer.endpoint()}},
                              [](std::string_view url) { return url == "http://cached/"; });
  Bytes storage;
  peer.send({.opcode = IcpOpcode::query, .request_number = 0xdeadbeef, .url = "http://cached/"},
            at(a));
  auto reply = peer.receive_message(storage);
  EXPECT_EQ(reply.opcode, IcpOpcode::hit);
  EXPECT_EQ(reply.request_number, 0xdeadbeefu);
  EXPECT_EQ(reply.url, "http://cached/");

  peer.send({.opcode = IcpOpcode::query,
             .request_number = 7,
             .options = protocol::kIcpFlagHitObj,
             .url = "http://other/"},
            at(a));
  reply = peer.receive_message(storage);
  EXPECT_EQ(reply.opcode, IcpOpcode::miss);
  EXPECT_EQ(reply.request_number, 7u);
  EXPECT_EQ(reply.url, "http://other/");
  EXPECT_EQ(reply.options, 0u);  // HIT_OBJ asked for, not given

  // Squid with query_icmp on asks for the source RTT (RFC 2186 ICP_FLAG_SRC_RTT): a
  // responder that measured none answers without the flag and with zero option data.
  peer.send({.opcode = IcpOpcode::query,
             .request_number = 8,
             .options = protocol::kIcpFlagSrcRtt,
             .option_data = 0x00010002,
             .url = "http://cached/"},
            at(a));
  reply = peer.receive_message(storage);
  EXPECT_EQ(reply.opcode, IcpOpcode::hit);
  EXPECT_EQ(reply.request_number, 8u);
  EXPECT_EQ(reply.options, 0u);
  EXPECT_EQ(reply.option_data, 0u);

  // The agent counts a reply once it is sent: after the peer may have read it.
  EXPECT_TRUE(eventually([&] { return answering.counters()[0].misses_sent == 1; }));
  EXPECT_TRUE(eventually([&] { return answering.counters()[0].hits_sent == 2; }));
  const auto c = answering.counters()[0];
  EXPECT_EQ(c.queries_received, 3u);
  EXPECT_EQ(c.bytes_sent, 2 * (protocol::kIcpHeaderSize + sizeof("http://cached/")) +
                              protocol::kIcpHeaderSize + sizeof("http://other/"));
}

TEST_F(IcpAgentTest, ASenderThatIsNotAPeerIsDenied) {
  RawPeer stranger;
  const auto a = free_udp_port(), q = free_udp_port();
  IcpAgent& answering = agent(a, {{"q", at(q)}}, always);
  stranger.send({.opcode = IcpOpcode::query, .request_number = 42, .url = "http://x/"}, at(a));
  Bytes storage;
  const auto reply = stranger.receive_message(storage);
  EXPECT_EQ(reply.opcode, IcpOpcode::denied);
  EXPECT_EQ(reply.request_number, 42u);
  EXPECT_EQ(reply.url, "http://x/");
  EXPECT_TRUE(eventually([&] { return answering.totals().denied_sent == 1; }));
  EXPECT_EQ(answering.totals().queries_received, 1u);
  EXPECT_EQ(answering.counters()[0].queries_received, 0u);
}

// A Squid with udp_outgoing_address queries from that address, on its ICP port, and
// replies from its udp_incoming_address (its `host`): both are the peer.
TEST_F(IcpAgentTest, APeersQueriesFromItsSourceAddressAreAnswered) {
  const auto a = free_udp_port(), q = free_udp_port(asio::ip::make_address("127.0.0.2"));
  RawPeer outgoing(udp::endpoint(asio::ip::make_address("127.0.0.2"), q));
  IcpAgent& answering = agent(a, {{"squid", at(q), asio::ip::make_address("127.0.0.2")}}, always);
  outgoing.send({.opcode = IcpOpcode::query, .request_number = 9, .url = "http://x/"}, at(a));
  Bytes storage;
  const auto reply = outgoing.receive_message(storage);
  EXPECT_EQ(reply.opcode, IcpOpcode::hit);
  EXPECT_EQ(reply.request_number, 9u);
  EXPECT_TRUE(eventually([&] { return answering.counters()[0].hits_sent == 1; }));
  EXPECT_EQ(answering.counters()[0].queries_received, 1u);
  EXPECT_EQ(answering.totals().denied_sent, 0u);

  // Another port on that address is still a stranger.
  RawPeer other(udp::endpoint(asio::ip::make_address("127.0.0.2"), 0));
  other.send({.opcode = IcpOpcode::query, .request_number = 10, .url = "http://x/"}, at(a));
  EXPECT_EQ(other.receive_message(storage).opcode, IcpOpcode::denied);
}

// Draining, the node's proxy listener is closed: a HIT would send the peer there.
TEST_F(IcpAgentTest, ADrainingAgentAnswersMissNoFetchEvenForWhatItHolds) {
  RawPeer peer;
  const auto a = free_udp_port();
  IcpAgent& answering = agent(a, {{"raw", peer.endpoint()}}, always);
  answering.refuse_fetches();
  peer.send({.opcode = IcpOpcode::query, .request_number = 3, .url = "http://held/"}, at(a));
  Bytes storage;
  const auto reply = peer.receive_message(storage);
  EXPECT_EQ(reply.opcode, IcpOpcode::miss_nofetch);
  EXPECT_EQ(reply.request_number, 3u);
  EXPECT_EQ(reply.url, "http://held/");
  EXPECT_TRUE(eventually([&] { return answering.counters()[0].misses_sent == 1; }));
  EXPECT_EQ(answering.counters()[0].hits_sent, 0u);

  // A stranger is still refused outright.
  RawPeer stranger;
  stranger.send({.opcode = IcpOpcode::query, .request_number = 4, .url = "http://held/"}, at(a));
  EXPECT_EQ(stranger.receive_message(storage).opcode, IcpOpcode::denied);
}

TEST_F(IcpAgentTest, GarbageIsCountedAndDoesNotDisturbConcurrentQueries) {
  const auto q = free_udp_port(), a = free_udp_port();
  agent(a, {{"q", at(q)}}, always);
  IcpAgent& querier = agent(q, {{"a", at(a)}}, never);

  Bytes too_large(protocol::kIcpMaxDatagram + 100, 0);
  too_large[0] = 3;
  too_large[1] = 2;
  Bytes bad_version = encode({.opcode = IcpOpcode::hit, .url = "u"});
  bad_version[1] = 3;
  Bytes hit_obj = encode({.opcode = IcpOpcode::hit, .url = "u"});
  hit_obj[0] = 23;
  const std::vector<Bytes> garbage = {Bytes{1, 2, 3}, Bytes(20, 0), too_large, bad_version,
                                      hit_obj};
  constexpr int kRounds = 20;
  std::thread flood([&] {
    RawPeer stranger;
    for (int i = 0; i < kRounds; ++i) {
      for (const auto& g : garbage) stranger.send(g, at(q));
      // Paced: a socket buffer full of 16 KiB datagrams would drop the peers' replies too,
      // which is UDP's nature and not what this test is about.
      const std::uint64_t sent = (i + 1) * garbage.size();
      eventually([&] { return querier.totals().rejected >= sent; });
    }
  });
  int hits = 0;
  for (int i = 0; i < kRounds; ++i) hits += ask(querier, "http://x/" + std::to_string(i)).hit == 0u;
  flood.join();
  EXPECT_EQ(hits, kRounds);
  const std::uint64_t expected = kRounds * garbage.size();
  EXPECT_TRUE(eventually([&] { return querier.totals().rejected == expected; }))
      << querier.totals().rejected;
  EXPECT_EQ(querier.counters()[0].rejected, 0u);
}

TEST_F(IcpAgentTest, QueriesFromSeveralThreadsAtOnceEachGetTheirOwnAnswer) {
  const auto q = free_udp_port(), a = free_udp_port(), b = free_udp_port();
  const auto is_hit = [](std::string_view url) { return url.ends_with("/hit"); };
  IcpAgent& peer_a = agent(a, {{"q", at(q)}}, is_hit);
  agent(b, {{"q", at(q)}}, never);
  IcpAgent& querier = agent(q, {{"a", at(a)}, {"b", at(b)}}, never);

  // In flight at once: 4 threads x 10 queries, kept small so that loopback's socket
  // buffers never drop a reply.
  constexpr int kThreads = 4, kRounds = 10, kInFlight = 10;
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        asio::io_context caller;
        for (int i = 0; i < kInFlight; ++i) {
          const bool hit = (t + r + i) % 2 == 0;
          const std::string url = "http://t" + std::to_string(t) + "/" + std::to_string(r) + "/" +
                                  std::to_string(i) + (hit ? "/hit" : "/miss");
          asio::co_spawn(caller, querier.query(url, kLongTimeout),
                         [&, hit](std::exception_ptr, IcpQueryResult res) {
                           const bool ok =
                               hit ? res.hit == 0u : !res.hit && res.replies == 2 && !res.timed_out;
                           if (!ok) ++wrong;
                         });
        }
        caller.run();
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  constexpr std::uint64_t kTotal = kThreads * kRounds * kInFlight;
  EXPECT_EQ(querier.counters()[0].queries_sent, kTotal);
  EXPECT_EQ(querier.counters()[1].queries_sent, kTotal);
  EXPECT_EQ(peer_a.counters()[0].queries_received, kTotal);
  EXPECT_TRUE(eventually([&] { return peer_a.counters()[0].hits_sent == kTotal / 2; }));
}

TEST_F(IcpAgentTest, StopCompletesPendingQueriesAsTimedOut) {
  RawPeer silent;
  const auto q = free_udp_port();
  IcpAgent& querier = agent(q, {{"silent", silent.endpoint()}}, never);
  auto pending = std::async(std::launch::async,
                            [&] { return ask(querier, "http://x/", std::chrono::hours(1)); });
  ASSERT_TRUE(silent.receive());  // the query is registered before it is sent
  querier.stop();
  ASSERT_EQ(pending.wait_for(60s), std::future_status::ready) << "stop() left the query waiting";
  const auto result = pending.get();
  EXPECT_TRUE(result.timed_out);
  EXPECT_EQ(result.replies, 0u);
  const auto after = ask(querier, "http://y/", std::chrono::hours(1));
  EXPECT_TRUE(after.timed_out);
  EXPECT_EQ(after.queried, 0u);
}

TEST_F(IcpAgentTest, DestroyingTheAgentCompletesItsPendingQueries) {
  RawPeer silent;
  const auto q = free_udp_port();
  agent(q, {{"silent", silent.endpoint()}}, never);
  auto pending = std::async(
      std::launch::async, [&] { return ask(*agents_.back(), "http://x/", std::chrono::hours(1)); });
  ASSERT_TRUE(silent.receive());
  agents_.clear();
  ASSERT_EQ(pending.wait_for(60s), std::future_status::ready);
  EXPECT_TRUE(pending.get().timed_out);
}

TEST_F(IcpAgentTest, ALateReplyIsCountedAndDropped) {
  RawPeer slow;
  const auto q = free_udp_port();
  IcpAgent& querier = agent(q, {{"slow", slow.endpoint()}}, never);
  const auto result = ask(querier, "http://x/", 50ms);
  EXPECT_TRUE(result.timed_out);
  Bytes storage;
  const auto query = slow.receive_message(storage);
  slow.send({.opcode = IcpOpcode::hit, .request_number = query.request_number, .url = query.url},
            at(q));
  EXPECT_TRUE(eventually([&] { return querier.counters()[0].late_replies == 1; }));
  EXPECT_EQ(querier.counters()[0].hits_received, 0u);
}

TEST_F(IcpAgentTest, RepliesThatDoNotMatchTheQueryAreRejectedAndTheQueryGoesOn) {
  RawPeer peer;
  const auto q = free_udp_port();
  IcpAgent& querier = agent(q, {{"raw", peer.endpoint()}}, never);
  auto pending = std::async(std::launch::async, [&] { return ask(querier, "http://x/"); });
  Bytes storage;
  const auto query = peer.receive_message(storage);
  const std::uint32_t n = query.request_number;
  peer.send({.opcode = IcpOpcode::hit, .request_number = n, .url = "http://other/"}, at(q));
  Bytes hit_obj = encode({.opcode = IcpOpcode::hit, .request_number = n, .url = "http://x/"});
  hit_obj[0] = 23;
  peer.send(hit_obj, at(q));
  peer.send({.opcode = IcpOpcode::miss, .request_number = n + 1, .url = "http://x/"}, at(q));
  peer.send({.opcode = IcpOpcode::miss_nofetch, .request_number = n, .url = "http://x/"}, at(q));
  const auto result = pending.get();
  EXPECT_FALSE(result.hit);
  EXPECT_FALSE(result.timed_out);
  EXPECT_EQ(result.replies, 1u);
  const auto c = querier.counters()[0];
  EXPECT_EQ(c.rejected, 2u);
  EXPECT_EQ(c.late_replies, 1u);
  EXPECT_EQ(c.misses_received, 1u);
}

TEST_F(IcpAgentTest, TheMaskChoosesWhichPeersAreAsked) {
  const auto q = free_udp_port(), a = free_udp_port(), b = free_udp_port();
  IcpAgent& peer_a = agent(a, {{"q", at(q)}}, always);
  agent(b, {{"q", at(q)}}, always);
  IcpAgent& querier = agent(q, {{"a", at(a)}, {"b", at(b)}}, never);
  const auto only_b = ask(querier, "http://x/", kLongTimeout, 0b10);
  EXPECT_EQ(only_b.hit, 1u);
  EXPECT_EQ(only_b.queried, 1u);
  EXPECT_EQ(peer_a.counters()[0].queries_received, 0u);
  const auto nobody = ask(querier, "http://x/", kLongTimeout, 0);
  EXPECT_EQ(nobody.queried, 0u);
  EXPECT_FALSE(nobody.timed_out);
  EXPECT_EQ(querier.counters()[0].queries_sent, 0u);
}

TEST_F(IcpAgentTest, AUrlIcpCannotCarryIsNotSent) {
  RawPeer peer;
  IcpAgent& querier = agent(free_udp_port(), {{"raw", peer.endpoint()}}, never);
  const auto result = ask(querier, std::string(protocol::kIcpMaxUrl + 1, 'u'));
  EXPECT_EQ(result.queried, 0u);
  EXPECT_EQ(querier.counters()[0].queries_sent, 0u);
}

TEST_F(IcpAgentTest, PeersTalkOverIpv6) {
  const auto v6 = asio::ip::make_address("::1");
  const auto q = free_udp_port(v6), a = free_udp_port(v6);
  agent_at({v6, a}, {{"q", {v6, q}}}, always);
  IcpAgent& querier = agent_at({v6, q}, {{"a", {v6, a}}}, never);
  EXPECT_EQ(ask(querier, "http://x/").hit, 0u);
}

// A dual-stack socket sees IPv4 peers as ::ffff:127.0.0.1 and must still know them.
TEST_F(IcpAgentTest, ADualStackAgentKnowsItsIpv4Peers) {
  const auto any6 = asio::ip::make_address("::");
  const auto q = free_udp_port(), a = free_udp_port();
  agent(a, {{"q", at(q)}}, always);
  IcpAgent& querier = agent_at({any6, q}, {{"a", at(a)}}, never);
  EXPECT_EQ(ask(querier, "http://x/").hit, 0u);
  EXPECT_EQ(querier.counters()[0].hits_received, 1u);
}

TEST_F(IcpAgentTest, StartFailsWhenThePortIsTaken) {
  RawPeer holder;
  IcpAgent taken(io_.get_executor(), holder.endpoint(), {}, never, log_);
  EXPECT_EQ(taken.start(), std::errc::address_in_use);
}

}  // namespace
}  // namespace sumcache::daemon
