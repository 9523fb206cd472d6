#include "config/reload_table.h"

namespace sumcache::config {
namespace {

// Rules, limits, timeouts and tuning of decisions made per request or per summary update:
// what a running process can take on. Every other field shapes sockets, threads, the store or
// cluster membership, and waits for a restart.
constexpr ReloadRule kRules[] = {
    {"$.admin.token", ReloadClass::live},
    {"$.admin.token_file", ReloadClass::live},
    {"$.admin.allow", ReloadClass::live},
    // Certificates and TLS rules: every reload reads the files again (docs/tls.md).
    {"$.admin.tls", ReloadClass::live, "every field, while admin.tls stays set"},
    {"$.listen[*].tls", ReloadClass::live, "every field, while the listener keeps TLS"},
    {"$.reverse.host_header", ReloadClass::live},
    {"$.forward.connect_ports", ReloadClass::live},
    {"$.forward.allow_ports", ReloadClass::live},
    {"$.access", ReloadClass::live, "every field"},
    {"$.limits", ReloadClass::live, "every field"},
    {"$.cache.heuristic_fraction", ReloadClass::live},
    {"$.cache.heuristic_max_ms", ReloadClass::live},
    {"$.cache.targeted_fields", ReloadClass::live},
    {"$.log.level", ReloadClass::live},
    {"$.log.access_format", ReloadClass::live},
    {"$.cluster.update_threshold_percent", ReloadClass::live},
    {"$.cluster.update_max_interval_ms", ReloadClass::live},
    {"$.cluster.summary_expiry_ms", ReloadClass::live},
    {"$.cluster.peer_timeout_ms", ReloadClass::live},
    {"$.cluster.store_peer_hits", ReloadClass::live},
    {"$.cluster.miss_policy", ReloadClass::live},
    {"$.cluster.peer_grace_ms", ReloadClass::live},
    {"$.peers[*].weight", ReloadClass::live},
    // Summary mode's peers join and leave at runtime (docs/peers.md, "Live membership");
    // ICP's agent holds its peers from the start.
    {"$.peers", ReloadClass::live_summary,
     "the list, when the running and the new config both have `cluster.sharing` `summary`"},
};

// "$.peers[3].weight" -> "$.peers[*].weight".
std::string without_indexes(std::string_view path) {
  std::string result;
  for (std::size_t i = 0; i < path.size(); ++i) {
    result += path[i];
    if (path[i] != '[') continue;
    result += '*';
    const std::size_t close = path.find(']', i);
    if (close == std::string_view::npos) break;
    i = close - 1;
  }
  return result;
}

bool covers(std::string_view rule, std::string_view path) {
  return path.starts_with(rule) &&
         (path.size() == rule.size() || path[rule.size()] == '.' || path[rule.size()] == '[');
}

}  // namespace

std::span<const ReloadRule> reload_table() { return kRules; }

ReloadClass reload_class(std::string_view path) {
  const std::string pattern = without_indexes(path);
  const ReloadRule* best = nullptr;
  for (const ReloadRule& rule : kRules) {
    if (covers(rule.path, pattern) && (best == nullptr || rule.path.size() > best->path.size())) {
      best = &rule;
    }
  }
  return best != nullptr ? best->reload : ReloadClass::restart;
}

std::string_view to_string(ReloadClass reload) {
  switch (reload) {
    case ReloadClass::live:
      return "live";
    case ReloadClass::live_summary:
      return "live (summary)";
    case ReloadClass::restart:
      return "restart";
  }
  return "restart";
}

std::string reload_table_markdown() {
  std::string out;
  for (const ReloadRule& rule : kRules) {
    std::string field(rule.path.substr(2));  // without "$."
    for (std::size_t at; (at = field.find("[*]")) != std::string::npos;) field.replace(at, 3, "[]");
    out += "- `" + field + "`";
    if (!rule.note.empty()) out += " (" + std::string(rule.note) + ")";
    out += "\n";
  }
  return out;
}

}  // namespace sumcache::config
