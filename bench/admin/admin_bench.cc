// Admin endpoint costs: what every proxied request pays to be counted
// (RequestMetrics::record: relaxed atomics, one set per worker), against the
// former layout where every worker wrote one shared set, and what a scrape
// costs to format once the figures are copied out.
// Run: build/release/bench/admin/admin_bench --benchmark_repetitions=5
#include <benchmark/benchmark.h>

#include <array>

#include "daemon/admin/metrics_text.h"
#include "daemon/admin/stats_json.h"
#include "daemon/observe/request_metrics.h"

namespace sumcache::daemon {
namespace {

void record_loop(benchmark::State& state, RequestMetrics& metrics) {
  AccessRecord record;
  record.status = 200;
  record.bytes = 5000;
  record.result = CacheResult::hit;
  std::int64_t micros = 100 + state.thread_index() * 37;
  for (auto _ : state) {
    record.elapsed = std::chrono::microseconds(micros);
    micros = micros < 100000 ? micros * 3 / 2 : 100;
    metrics.record(record);
  }
}

// One instance written by every thread: the layout before counters moved per worker.
void BM_record_shared(benchmark::State& state) {
  static RequestMetrics shared;
  record_loop(state, shared);
}
BENCHMARK(BM_record_shared)->Threads(1)->Threads(2);

// One instance per thread, as each worker now has its own (WorkerContext::metrics).
void BM_record_per_worker(benchmark::State& state) {
  static std::array<RequestMetrics, 2> per_worker;
  record_loop(state, per_worker[static_cast<std::size_t>(state.thread_index()) % 2]);
}
BENCHMARK(BM_record_per_worker)->Threads(1)->Threads(2);

StatsSnapshot busy_snapshot() {
  StatsSnapshot s;
  for (unsigned code : {200, 204, 206, 301, 304, 400, 403, 404, 500, 502, 503, 504}) {
    s.statuses.emplace_back(code, 1000 + code);
  }
  LatencyHistogram h;
  for (std::uint64_t us = 40; us < 2'000'000; us = us * 11 / 10) h.record(us);
  for (auto& l : s.latency) l = h.snapshot();
  for (int i = 0; i < 8; ++i) {
    PeerStatus p;
    p.id = "peer-" + std::to_string(i);
    p.state = PeerState::up;
    s.peers.push_back(p);
  }
  s.filter = {false, 1 << 24, 4, 100000, 400000, 0, 0, 1234, 1 << 23};
  return s;
}

void BM_metrics_text(benchmark::State& state) {
  const StatsSnapshot s = busy_snapshot();
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::string text = metrics_text(s);
    bytes = text.size();
    benchmark::DoNotOptimize(text.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_metrics_text);

void BM_stats_json(benchmark::State& state) {
  const StatsSnapshot s = busy_snapshot();
  for (auto _ : state) {
    const std::string text = stats_json(s).dump(2);
    benchmark::DoNotOptimize(text.data());
  }
}
BENCHMARK(BM_stats_json);

}  // namespace
}  // namespace sumcache::daemon
