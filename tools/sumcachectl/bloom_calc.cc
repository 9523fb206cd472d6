#include "tools/sumcachectl/bloom_calc.h"

#include <cstdio>

#include "tools/sumcachectl/json_tables.h"

namespace sumcache::tools {

Result<BloomCalc> bloom_calc(const BloomCalcInput& input) {
  auto params = input.fpr > 0
                    ? filters::optimal_params(input.entries, input.fpr)
                    : filters::params_for_load(input.entries, input.bits_per_entry, input.hashes);
  if (!params) return params.error();
  if (input.fpr > 0 && input.hashes != 0) params->k = input.hashes;
  if (auto ec = filters::validate(*params)) return ec;
  BloomCalc c;
  c.entries = input.entries;
  c.params = *params;
  c.expected_fpr = filters::expected_fpr(c.params, c.entries);
  c.plain_bytes = (c.params.m + 63) / 64 * 8;
  c.counting_bytes = (c.params.m + 1) / 2;
  c.wire = estimate_summary_wire(c.params, c.entries);
  c.wire_optimal = wire_optimal(c.params, c.entries);
  c.wire_optimal_fpr = filters::expected_fpr(c.wire_optimal, c.entries);
  return c;
}

std::string format_bloom_calc(const BloomCalc& c) {
  const double bits_per_entry = static_cast<double>(c.params.m) / static_cast<double>(c.entries);
  char line[256];
  std::string out;
  auto row = [&out](const std::string& name, const std::string& value) {
    out += name + std::string(name.size() < 28 ? 28 - name.size() : 1, ' ') + value + "\n";
  };
  row("entries (n)", std::to_string(c.entries));
  row("bits (m)", std::to_string(c.params.m));
  row("hashes (k)", std::to_string(c.params.k));
  std::snprintf(line, sizeof line, "%.2f", bits_per_entry);
  row("bits per entry", line);
  std::snprintf(line, sizeof line, "%.6g", c.expected_fpr);
  row("expected FPR", line);
  row("plain bit array", std::to_string(c.plain_bytes) + " bytes (" +
                             human_bytes(static_cast<double>(c.plain_bytes)) + ")");
  row("counting filter (4-bit)", std::to_string(c.counting_bytes) + " bytes (" +
                                     human_bytes(static_cast<double>(c.counting_bytes)) + ")");
  std::snprintf(line, sizeof line, "%llu bytes (%s, %s, %.0f set bits expected)",
                static_cast<unsigned long long>(c.wire.bytes),
                human_bytes(static_cast<double>(c.wire.bytes)).c_str(),
                c.wire.raw ? "raw bit array"
                           : ("Rice-coded gaps, r = " + std::to_string(c.wire.rice_bits)).c_str(),
                c.wire.set_bits);
  row("summary on the wire (est.)", line);
  if (c.wire_optimal != c.params) {
    std::snprintf(line, sizeof line,
                  "m = %llu, k = %u: FPR %.6g in the same wire bytes (m capped at %llux)",
                  static_cast<unsigned long long>(c.wire_optimal.m), c.wire_optimal.k,
                  c.wire_optimal_fpr, static_cast<unsigned long long>(kMaxWireOptimalGrowth));
    row("compressed-optimal", line);
  }
  return out;
}

}  // namespace sumcache::tools
