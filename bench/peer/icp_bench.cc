// The ICP codec, and one query's round trip between two agents on 127.0.0.1: what
// the `icp` sharing mode adds to every local miss before it can go anywhere.
#include <benchmark/benchmark.h>

#include <thread>

#include "daemon/peer/icp_agent.h"
#include "protocol/icp_message.h"

namespace sumcache::daemon {
namespace {

const std::string kUrl = "http://www.example.com/images/2024/05/some-object-name.jpg?v=3";

void BM_IcpEncodeQuery(benchmark::State& state) {
  std::vector<std::uint8_t> out;
  std::uint32_t n = 0;
  for (auto _ : state) {
    (void)protocol::encode_icp(
        {.opcode = protocol::IcpOpcode::query, .request_number = ++n, .url = kUrl}, out);
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_IcpEncodeQuery);

void BM_IcpDecodeQuery(benchmark::State& state) {
  const auto datagram = *protocol::encode_icp({.opcode = protocol::IcpOpcode::query, .url = kUrl});
  for (auto _ : state) {
    auto m = protocol::decode_icp(datagram);
    benchmark::DoNotOptimize(m);
  }
}
BENCHMARK(BM_IcpDecodeQuery);

std::uint16_t free_udp_port() {
  asio::io_context io;
  udp::socket s(io, udp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return s.local_endpoint().port();
}

// Args: peers answering (all MISS, so the query waits for every reply).
void BM_IcpQueryRoundTrip(benchmark::State& state) {
  const auto loopback = asio::ip::make_address("127.0.0.1");
  Logger log(LogLevel::error, "-");
  asio::io_context agents_io;
  auto guard = asio::make_work_guard(agents_io);
  std::thread agents_thread([&] { agents_io.run(); });
  const std::uint16_t q = free_udp_port();
  std::vector<std::unique_ptr<IcpAgent>> peers;
  std::vector<IcpPeer> peer_list;
  for (int i = 0; i < state.range(0); ++i) {
    const udp::endpoint at(loopback, free_udp_port());
    peers.push_back(std::make_unique<IcpAgent>(
        agents_io.get_executor(), at, std::vector<IcpPeer>{{"q", {loopback, q}}},
        [](std::string_view) { return false; }, log));
    if (peers.back()->start()) state.SkipWithError("bind failed");
    peer_list.push_back({"p" + std::to_string(i), at});
  }
  IcpAgent querier(
      agents_io.get_executor(), {loopback, q}, peer_list, [](std::string_view) { return false; },
      log);
  if (querier.start()) state.SkipWithError("bind failed");
  asio::io_context caller;
  std::size_t timeouts = 0;
  for (auto _ : state) {
    asio::co_spawn(caller, querier.query(kUrl, std::chrono::seconds(5)),
                   [&](std::exception_ptr, IcpQueryResult r) { timeouts += r.timed_out; });
    caller.restart();
    caller.run();
  }
  state.counters["timeouts"] = static_cast<double>(timeouts);
  querier.stop();
  peers.clear();
  guard.reset();
  agents_thread.join();
}
BENCHMARK(BM_IcpQueryRoundTrip)->Arg(1)->Arg(4)->Arg(16)->UseRealTime();

}  // namespace
}  // namespace sumcache::daemon
