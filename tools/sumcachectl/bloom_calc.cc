#include "tools/sumcachectl/bloom_calc.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "protocol/wire_header.h"
#include "protocol/wire_sizing.h"
#include "tools/sumcachectl/json_tables.h"

namespace sumcache::tools {
namespace {

void row(std::string& out, const std::string& name, const std::string& value) {
  out += name + std::string(name.size() < 28 ? 28 - name.size() : 1, ' ') + value + "\n";
}

std::string bytes_row(std::uint64_t bytes) {
  return std::to_string(bytes) + " bytes (" + human_bytes(static_cast<double>(bytes)) + ")";
}

std::string figures_block(const FilterFigures& f, std::uint64_t entries) {
  char line[128];
  std::string out;
  row(out, "bits (m)", std::to_string(f.params.m));
  row(out, "hashes (k)", std::to_string(f.params.k));
  std::snprintf(line, sizeof line, "%.2f",
                static_cast<double>(f.params.m) / static_cast<double>(entries));
  row(out, "bits per entry", line);
  std::snprintf(line, sizeof line, "%.6g", f.expected_fpr);
  row(out, "expected FPR", line);
  row(out, "plain bit array", bytes_row(f.plain_bytes));
  row(out, "counting filter (4-bit)", bytes_row(f.counting_bytes));
  std::snprintf(line, sizeof line, "%.2f bits per entry, ", f.wire_bits_per_entry);
  row(out, "full summary on the wire", line + bytes_row(f.wire_bytes));
  return out;
}

std::string memory_heading(const BloomCalcInput& in) {
  char line[160];
  if (in.fpr > 0 && in.hashes != 0) {
    std::snprintf(line, sizeof line, "m for FPR %g, k = %u from --hashes", in.fpr, in.hashes);
  } else if (in.fpr > 0) {
    std::snprintf(line, sizeof line,
                  "memory-optimal for FPR %g: the fewest counters (filter.objective \"memory\")",
                  in.fpr);
  } else {
    std::snprintf(line, sizeof line, "filter.bits_per_entry %g, filter.hashes %s",
                  in.bits_per_entry,
                  in.hashes != 0 ? std::to_string(in.hashes).c_str() : "optimal");
  }
  return line;
}

}  // namespace

FilterFigures filter_figures(std::uint64_t entries, filters::BloomParams params) {
  FilterFigures f;
  f.params = params;
  f.expected_fpr = filters::expected_fpr(params, entries);
  f.plain_bytes = (params.m + 63) / 64 * 8;
  f.counting_bytes = (params.m + 1) / 2;
  const auto wire = protocol::estimate_wire(entries, params);
  f.wire_bits_per_entry = wire.wire_bits_per_entry;
  // estimate_wire counts n = 0 as one key; the payload is whole bytes.
  const double keys = static_cast<double>(std::max<std::uint64_t>(entries, 1));
  const auto bits = static_cast<std::uint64_t>(std::llround(wire.wire_bits_per_entry * keys));
  f.wire_bytes = (bits + 7) / 8;
  return f;
}

Result<BloomCalc> bloom_calc(const BloomCalcInput& input) {
  auto params = input.fpr > 0
                    ? filters::optimal_params(input.entries, input.fpr)
                    : filters::params_for_load(input.entries, input.bits_per_entry, input.hashes);
  if (!params) return params.error();
  if (input.fpr > 0 && input.hashes != 0) params->k = input.hashes;
  if (auto ec = filters::validate(*params)) return ec;
  BloomCalc c;
  c.input = input;
  c.memory = filter_figures(input.entries, *params);
  if (input.fpr > 0) {
    // The daemon's choice for filter.objective "wire" (daemon/app/daemon_app.cc).
    auto wire = protocol::wire_optimal(input.entries, input.fpr);
    if (!wire) return wire.error();
    c.wire = filter_figures(input.entries, wire->params);
  }
  return c;
}

std::string format_bloom_calc(const BloomCalc& c) {
  const std::uint64_t n = c.input.entries;
  std::string out;
  row(out, "entries (n)", std::to_string(n));
  out += "\n" + memory_heading(c.input) + "\n" + figures_block(c.memory, n);
  if (c.wire) {
    char line[200];
    std::snprintf(line, sizeof line,
                  "wire-optimal for FPR %g: the fewest bits on the wire (filter.objective "
                  "\"wire\")\n",
                  c.input.fpr);
    out += std::string("\n") + line + figures_block(*c.wire, n);
    std::snprintf(
        line, sizeof line,
        "\nwire-optimal against the first: %.2fx the bytes on the wire, %.1fx the memory\n"
        "(the sender's counting filter and every peer's copy of the bits grow with m)\n",
        static_cast<double>(c.wire->wire_bytes) / static_cast<double>(c.memory.wire_bytes),
        static_cast<double>(c.wire->params.m) / static_cast<double>(c.memory.params.m));
    out += line;
  }
  out +=
      "\nWire sizes: a full summary's payload as protocol/wire_sizing.h estimates it;\n"
      "a message adds " +
      std::to_string(protocol::kHeaderBytes + protocol::kTagBytes) + " bytes and the node id.\n";
  return out;
}

}  // namespace sumcache::tools
