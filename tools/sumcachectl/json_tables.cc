#include "tools/sumcachectl/json_tables.h"

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

namespace sumcache::tools {
namespace {

using nlohmann::json;

// The value at a '.'-separated path, or null when any step is missing.
const json& at(const json& j, std::string_view path) {
  static const json null_value;
  const json* node = &j;
  while (!path.empty()) {
    const auto dot = path.find('.');
    const std::string key(path.substr(0, dot));
    if (!node->is_object() || !node->contains(key)) return null_value;
    node = &(*node)[key];
    path = dot == std::string_view::npos ? "" : path.substr(dot + 1);
  }
  return *node;
}

std::string printf_string(const char* format, double v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, v);
  return buffer;
}

std::string count(const json& v) {
  return v.is_number() ? printf_string("%.0f", v.get<double>()) : "-";
}
std::string pct(const json& v) {
  return v.is_number() ? printf_string("%.1f%%", v.get<double>() * 100) : "-";
}
std::string num(const json& v, const char* format = "%.2f") {
  return v.is_number() ? printf_string(format, v.get<double>()) : "-";
}
std::string text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  return v.is_null() ? "-" : v.dump();
}
std::string bytes(const json& v) { return v.is_number() ? human_bytes(v.get<double>()) : "-"; }

void row(std::string& out, const std::string& name, const std::string& value) {
  out += name + std::string(name.size() < 14 ? 14 - name.size() : 1, ' ') + value + "\n";
}

// "name n, name n" for every member of a JSON object of counters.
std::string counters(const json& object) {
  if (!object.is_object() || object.empty()) return "-";
  std::string s;
  for (const auto& [name, value] : object.items()) {
    s += (s.empty() ? "" : ", ") + name + " " + count(value);
  }
  return s;
}

// Columns padded to their widest cell; the first column left-aligned, the rest right.
std::string table(const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows) {
    width.resize(std::max(width.size(), r.size()));
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  std::string out;
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      const std::string pad(width[i] - r[i].size(), ' ');
      line += i == 0 ? r[i] + pad : "  " + pad + r[i];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace

std::string human_bytes(double value) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(kUnits)) {
    value /= 1024;
    ++unit;
  }
  return unit == 0 ? printf_string("%.0f B", value) : printf_string("%.1f ", value) + kUnits[unit];
}

std::string format_stats(const json& s) {
  std::string out;
  row(out, "node",
      text(at(s, "node_id")) + " (sumcached " + text(at(s, "version")) + ", up " +
          num(at(s, "uptime_seconds"), "%.0f") + " s, config " + text(at(s, "config_digest")) +
          ")");
  row(out, "requests",
      count(at(s, "requests.total")) + " total: " + counters(at(s, "requests.by_result")));
  row(out, "statuses", counters(at(s, "requests.by_status")));
  row(out, "errors", counters(at(s, "requests.errors_by_status")));
  row(out, "hits",
      "memory " + count(at(s, "hits.memory")) + ", disk " + count(at(s, "hits.disk")) + ", peer " +
          count(at(s, "hits.peer")) + "; misses " + count(at(s, "misses")) + ", false peer hits " +
          count(at(s, "false_hits")));
  row(out, "revalidations",
      "not modified " + count(at(s, "revalidations.not_modified")) + ", modified " +
          count(at(s, "revalidations.modified")));
  row(out, "bytes", "in " + bytes(at(s, "bytes.in")) + ", out " + bytes(at(s, "bytes.out")));
  out += "\n";
  std::vector<std::vector<std::string>> ratios{
      {"hit ratios", "local", "total", "bytes", "total bytes"}};
  for (const char* window : {"1m", "5m", "since_start"}) {
    const json& r = at(at(s, "ratios"), window);
    ratios.push_back({std::string("  ") + window, pct(at(r, "hit")), pct(at(r, "total_hit")),
                      pct(at(r, "byte_hit")), pct(at(r, "total_byte_hit"))});
  }
  out += table(ratios) + "\n";
  std::vector<std::vector<std::string>> latency{{"latency ms", "count", "p50", "p90", "p99"}};
  for (const char* kind : {"hit", "miss", "peer_hit", "other"}) {
    const json& l = at(at(s, "latency_ms"), kind);
    latency.push_back({std::string("  ") + kind, count(at(l, "count")), num(at(l, "p50")),
                       num(at(l, "p90")), num(at(l, "p99"))});
  }
  out += table(latency) + "\n";
  std::vector<std::vector<std::string>> store{{"store", "objects", "bytes", "max", "evictions"}};
  for (const char* tier : {"memory", "disk"}) {
    const json& t = at(at(s, "store"), tier);
    const bool off = at(t, "enabled").is_boolean() && !at(t, "enabled").get<bool>();
    store.push_back({std::string("  ") + tier + (off ? " (off)" : ""), count(at(t, "objects")),
                     bytes(at(t, "bytes")), bytes(at(t, "max_bytes")), count(at(t, "evictions"))});
  }
  out += table(store) + "\n";
  row(out, "connections",
      "open " + count(at(s, "connections.open")) + ", refused " +
          count(at(s, "connections.refused")));
  row(out, "upstream",
      "errors " + count(at(s, "upstream.errors")) + ", idle connections " +
          count(at(s, "upstream.idle_connections")));
  return out;
}

std::string format_peers(const json& p) {
  const json& list = at(p, "peers");
  if (!list.is_array() || list.empty()) return "no peers\n";
  std::vector<std::vector<std::string>> rows{{"peer", "address", "state", "summary age s",
                                              "entries", "fill", "est. FPR", "sent", "false hits",
                                              "false hit rate", "rtt ms", "last error"}};
  for (const json& peer : list) {
    const json& sent = at(peer, "requests_sent");
    const json& false_hits = at(peer, "false_hits");
    // Measured here from the two counters: false hits per request sent.
    const std::string rate = sent.is_number() && false_hits.is_number() && sent.get<double>() > 0
                                 ? num(false_hits.get<double>() / sent.get<double>(), "%.4f")
                                 : "-";
    std::string age = at(peer, "has_summary") == json(false)
                          ? "none"
                          : num(at(peer, "summary_age_seconds"), "%.1f");
    if (at(peer, "summary_expired") == json(true)) age += " (expired)";
    rows.push_back(
        {text(at(peer, "id")), text(at(peer, "host")) + ":" + count(at(peer, "http_port")),
         text(at(peer, "state")), age, count(at(peer, "entries")), pct(at(peer, "fill_ratio")),
         num(at(peer, "estimated_fpr"), "%.3g"), count(sent), count(false_hits), rate,
         num(at(peer, "rtt_ms")), text(at(peer, "last_error"))});
  }
  return table(rows);
}

std::string format_filter(const json& f) {
  std::string out;
  row(out, "parameters",
      "m " + count(at(f, "m")) + ", k " + count(at(f, "k")) + ", hash " + text(at(f, "hash")));
  row(out, "entries",
      count(at(f, "entries")) + " (store objects " + count(at(f, "store_objects")) +
          ", estimated from fill " + num(at(f, "estimated_cardinality"), "%.0f") + ")");
  row(out, "set bits", count(at(f, "set_bits")) + ", fill " + pct(at(f, "fill_ratio")));
  row(out, "estimated FPR", num(at(f, "estimated_fpr"), "%.3g"));
  row(out, "counters",
      "saturated " + count(at(f, "saturated_counters")) + ", refused removes " +
          count(at(f, "refused_removes")));
  row(out, "pending", count(at(f, "pending_changes")) + " changes not yet published");
  row(out, "memory", bytes(at(f, "memory_bytes")));
  return out;
}

}  // namespace sumcache::tools
