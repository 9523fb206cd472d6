// summary_wire: what a cache summary costs on the wire (docs/protocol.md).
// For n random 60-byte URLs: the paper's layout (16 bits per URL, k = 4), the
// wire-optimal (m, k) for the same false positive rate, and the fingerprint
// set in the universe U = ceil(n / p) (the fingerprint kinds), each as a full
// summary (bits per URL against the entropy bound and log2(1/p)), its
// measured FPR over 10^6 absent keys, the delta after 1% and 10% of the
// entries were replaced, and encode and decode time (median of 5).
//
//   build/release/bench/protocol/summary_wire [n ...]   (default 100000 1000000)

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numbers>
#include <string>
#include <vector>

#include "filters/counting_bloom_filter.h"
#include "filters/fingerprint_table.h"
#include "filters/fingerprint.h"
#include "protocol/decode.h"
#include "protocol/encode.h"
#include "protocol/wire_sizing.h"
#include "tests/support/url_keys.h"

namespace {

using namespace sumcache;
using Clock = std::chrono::steady_clock;

constexpr std::uint64_t kAbsent = 1'000'000;
constexpr std::uint64_t kAbsentBase = 1'000'000'000;
constexpr int kRuns = 5;
constexpr std::string_view kSecret = "bench-secret";

template <class F>
double median_ms(F&& f) {
  std::vector<double> ms;
  for (int i = 0; i < kRuns; ++i) {
    const auto start = Clock::now();
    f();
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[kRuns / 2];
}

double binary_entropy(double q) {
  return q <= 0 || q >= 1 ? 0 : -(q * std::log2(q) + (1 - q) * std::log2(1 - q));
}

protocol::SummaryInfo info_for(const filters::BloomFilter& bits, std::uint64_t sequence,
                               std::uint64_t n) {
  return {"bench-node", 1, sequence, bits.params(), bits.hasher(), n};
}

void run(const char* name, std::uint64_t n, filters::BloomParams params, double target_fpr) {
  auto counting = *filters::CountingBloomFilter::create(params);
  for (std::uint64_t i = 0; i < n; ++i) counting.add(testing::url_key(i));
  const filters::BloomFilter base = counting.bit_view();
  const auto info = info_for(base, 1, n);

  std::string full;
  const double encode_ms =
      median_ms([&] { full = protocol::encode_full(info, base, kSecret).value(); });
  const auto secret = [](std::string_view) -> std::optional<std::string> {
    return std::string(kSecret);
  };
  bool decoded_ok = true;
  const double decode_ms = median_ms([&] {
    auto back = protocol::decode(full, secret);
    decoded_ok = decoded_ok && back.ok() && *back->bits == base;
  });

  std::uint64_t false_hits = 0;
  for (std::uint64_t j = 0; j < kAbsent; ++j)
    false_hits += base.contains(testing::url_key(kAbsentBase + j));
  const double fpr = static_cast<double>(false_hits) / kAbsent;
  const double fill = static_cast<double>(base.count_set_bits()) / static_cast<double>(params.m);
  const double keys = static_cast<double>(n);

  // Replace the oldest entries with new ones: 1% of n, then up to 10%.
  std::size_t delta_bytes[2] = {0, 0};
  std::uint64_t replaced = 0;
  std::uint64_t sequence = 1;
  for (int step = 0; step < 2; ++step) {
    for (const std::uint64_t target = n / (step == 0 ? 100 : 10); replaced < target; ++replaced) {
      if (counting.remove(testing::url_key(replaced))) std::abort();
      counting.add(testing::url_key(n + replaced));
    }
    const auto changes = filters::bit_differences(base, counting.bit_view());
    delta_bytes[step] =
        protocol::encode_delta(info_for(base, ++sequence, n), 1, changes, kSecret).value().size();
  }

  const auto estimate = protocol::estimate_wire(n, params);
  std::printf(
      "| %s | %llu | %.1f | %u | %.2f | %.2f | %.2f | %.2f | %.4f%% | %.4f%% | %.1f KiB (%.1f) | "
      "%.1f KiB (%.1f) | %.1f | %.1f | %.0f / %.0f |%s\n",
      name, static_cast<unsigned long long>(n), static_cast<double>(params.m) / keys, params.k,
      8.0 * static_cast<double>(full.size()) / keys, estimate.wire_bits_per_entry,
      static_cast<double>(params.m) * binary_entropy(fill) / keys, std::log2(1 / target_fpr),
      100 * target_fpr, 100 * fpr, static_cast<double>(delta_bytes[0]) / 1024.0,
      8.0 * static_cast<double>(delta_bytes[0]) / (keys / 100),
      static_cast<double>(delta_bytes[1]) / 1024.0,
      8.0 * static_cast<double>(delta_bytes[1]) / (keys / 10), encode_ms, decode_ms,
      static_cast<double>(params.m) / 2 / keys, static_cast<double>(params.m) / 8 / keys,
      decoded_ok ? "" : " DECODE MISMATCH");
}

// The sorted fingerprints of keys [first, first + count), as the sender's
// FingerprintTable holds them.
std::vector<std::uint64_t> fingerprints(const filters::Hasher& hasher, std::uint64_t universe,
                                        std::uint64_t first, std::uint64_t count) {
  std::vector<std::uint64_t> out;
  out.reserve(count);
  for (std::uint64_t i = first; i < first + count; ++i) {
    out.push_back(filters::fingerprint(hasher(testing::url_key(i)), universe));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The fingerprint kinds: the set of n fingerprints in U = ceil(n / p), its
// full message, and the deltas after replacing the oldest 1% and 10%.
void run_fingerprints(std::uint64_t n, double target_fpr) {
  const filters::Hasher hasher;
  const auto universe = static_cast<std::uint64_t>(std::ceil(static_cast<double>(n) / target_fpr));
  const auto base = fingerprints(hasher, universe, 0, n);
  const auto info = [&](std::uint64_t sequence, std::uint64_t entries) {
    return protocol::SummaryInfo{"bench-node", 1, sequence, {universe, 1}, hasher, entries};
  };

  std::string full;
  const double encode_ms = median_ms(
      [&] { full = protocol::encode_fingerprint_full(info(1, n), base, kSecret).value(); });
  const auto secret = [](std::string_view) -> std::optional<std::string> {
    return std::string(kSecret);
  };
  protocol::DecodeLimits limits;
  limits.max_m = filters::kMaxUniverse;
  bool decoded_ok = true;
  const double decode_ms = median_ms([&] {
    auto back = protocol::decode(full, secret, limits);
    decoded_ok = decoded_ok && back.ok() && back->fingerprints.added == base;
  });

  std::uint64_t false_hits = 0;
  for (std::uint64_t j = 0; j < kAbsent; ++j) {
    const auto f = filters::fingerprint(hasher(testing::url_key(kAbsentBase + j)), universe);
    false_hits += std::binary_search(base.begin(), base.end(), f);
  }
  const double fpr = static_cast<double>(false_hits) / kAbsent;
  const double keys = static_cast<double>(n);

  std::size_t delta_bytes[2] = {0, 0};
  std::uint64_t sequence = 1;
  for (int step = 0; step < 2; ++step) {
    const std::uint64_t replaced = n / (step == 0 ? 100 : 10);
    const auto delta = filters::fingerprint_difference(base, fingerprints(hasher, universe, replaced, n));
    const std::string wire =
        protocol::encode_fingerprint_delta(info(++sequence, n), 1, delta, kSecret).value();
    auto back = protocol::decode(wire, secret, limits);
    decoded_ok = decoded_ok && back.ok() && back->fingerprints == delta;
    delta_bytes[step] = wire.size();
  }

  // A sorted multiset of n values below U carries log2(U^n / n!) bits.
  const double entropy = (keys * std::log2(static_cast<double>(universe)) -
                          std::lgamma(keys + 1) / std::numbers::ln2) /
                         keys;
  const auto estimate = protocol::estimate_wire(n, {universe, 1});
  std::printf(
      "| fingerprint set | %llu | %.1f | 1 | %.2f | %.2f | %.2f | %.2f | %.4f%% | %.4f%% | "
      "%.1f KiB (%.1f) | %.1f KiB (%.1f) | %.1f | %.1f | see filters.md |%s\n",
      static_cast<unsigned long long>(n), static_cast<double>(universe) / keys,
      8.0 * static_cast<double>(full.size()) / keys, estimate.wire_bits_per_entry, entropy,
      std::log2(1 / target_fpr), 100 * target_fpr, 100 * fpr,
      static_cast<double>(delta_bytes[0]) / 1024.0,
      8.0 * static_cast<double>(delta_bytes[0]) / (keys / 100),
      static_cast<double>(delta_bytes[1]) / 1024.0,
      8.0 * static_cast<double>(delta_bytes[1]) / (keys / 10), encode_ms, decode_ms,
      decoded_ok ? "" : " DECODE MISMATCH");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::uint64_t> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::strtoull(argv[i], nullptr, 10));
  if (sizes.empty()) sizes = {100'000, 1'000'000};
  std::printf(
      "| layout | n | m/n | k | full: bits/URL on the wire | Rice estimate | entropy bound | "
      "log2(1/p) | target FPR | measured FPR | delta 1%% (bits per replaced URL) | delta 10%% | "
      "encode ms | decode ms | bytes/URL: sender counters / receiver bits |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const std::uint64_t n : sizes) {
    const filters::BloomParams paper{16 * n, 4};
    const double p = protocol::estimate_wire(n, paper).fpr;
    run("paper 16 bits, k=4", n, paper, p);
    run("wire-optimal", n, protocol::wire_optimal(n, p)->params, p);
    run_fingerprints(n, p);
  }
}
