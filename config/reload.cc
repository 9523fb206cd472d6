#include "config/reload.h"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "config/config_writer.h"

namespace sumcache::config {
namespace {

using detail::Json;

// Fields a running process can take on at SIGHUP: rules, limits, timeouts, tuning of
// decisions made per request or per summary update. "[*]" stands for any array index. Every
// other field shapes sockets, threads, the store or cluster membership, and waits for a
// restart. docs/configuration.md marks each field the same way.
constexpr std::string_view kLiveFields[] = {
    "$.admin.token",
    "$.admin.token_file",
    "$.admin.allow",
    "$.reverse.host_header",
    "$.forward.connect_ports",
    "$.forward.allow_ports",
    "$.access",
    "$.limits",
    "$.cache.heuristic_fraction",
    "$.cache.heuristic_max_ms",
    "$.log.level",
    "$.log.access_format",
    "$.cluster.update_threshold_percent",
    "$.cluster.update_max_interval_ms",
    "$.cluster.summary_expiry_ms",
    "$.cluster.peer_timeout_ms",
    "$.cluster.store_peer_hits",
    "$.cluster.miss_policy",
    "$.peers[*].weight",
    "$.cluster.peer_grace_ms",
};

void diff(const Json& a, const Json& b, const std::string& path, std::vector<std::string>& out) {
  if (a.is_object() && b.is_object()) {
    for (const auto& item : a.items()) {
      auto other = b.find(item.key());
      if (other == b.end()) {
        out.push_back(detail::child_path(path, item.key()));
      } else {
        diff(item.value(), *other, detail::child_path(path, item.key()), out);
      }
    }
    for (const auto& item : b.items()) {
      if (!a.contains(item.key())) out.push_back(detail::child_path(path, item.key()));
    }
  } else if (a.is_array() && b.is_array() && a.size() == b.size()) {
    for (std::size_t i = 0; i < a.size(); ++i) {
      diff(a[i], b[i], detail::element_path(path, i), out);
    }
  } else if (a != b) {
    out.push_back(path);
  }
}

// "$.peers[3].weight" -> "$.peers[*].weight".
std::string without_indexes(std::string_view path) {
  std::string result;
  for (std::size_t i = 0; i < path.size(); ++i) {
    result += path[i];
    if (path[i] != '[') continue;
    result += '*';
    i = path.find(']', i) - 1;
  }
  return result;
}

bool is_live(const std::string& path) {
  std::string pattern = without_indexes(path);
  return std::any_of(std::begin(kLiveFields), std::end(kLiveFields), [&](std::string_view live) {
    return pattern.starts_with(live) &&
           (pattern.size() == live.size() || pattern[live.size()] == '.' ||
            pattern[live.size()] == '[');
  });
}

}  // namespace

std::vector<std::string> changed_paths(const Config& running, const Config& next) {
  using detail::Secrets;
  std::vector<std::string> paths;
  diff(detail::write_config(running, Secrets::with_values),
       detail::write_config(next, Secrets::with_values), "$", paths);
  std::sort(paths.begin(), paths.end());
  return paths;
}

std::vector<std::string> restart_required_changes(const Config& running, const Config& next) {
  std::vector<std::string> paths = changed_paths(running, next);
  std::erase_if(paths, is_live);
  // Summary mode's peers join and leave at runtime (docs/peers.md, "Live
  // membership"); ICP's agent holds its peers from the start.
  if (running.cluster.sharing == Sharing::summary && next.cluster.sharing == Sharing::summary) {
    std::erase_if(paths, [](const std::string& p) { return p.starts_with("$.peers"); });
  }
  return paths;
}

}  // namespace sumcache::config
