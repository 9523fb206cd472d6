#include "config/reload.h"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "config/config_writer.h"
#include "config/reload_table.h"

namespace sumcache::config {
namespace {

using detail::Json;

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
  const bool summary =
      running.cluster.sharing == Sharing::summary && next.cluster.sharing == Sharing::summary;
  // TLS rules and files reload; turning TLS on or off changes what the socket speaks.
  std::vector<std::string> toggled;
  for (std::size_t i = 0; i < running.listen.size() && i < next.listen.size(); ++i) {
    if (running.listen[i].tls.has_value() != next.listen[i].tls.has_value()) {
      toggled.push_back("$.listen[" + std::to_string(i) + "].tls");
    }
  }
  if (running.admin.tls.has_value() != next.admin.tls.has_value()) toggled.push_back("$.admin.tls");
  std::vector<std::string> paths = changed_paths(running, next);
  std::erase_if(paths, [&](const std::string& path) {
    for (const std::string& t : toggled) {
      if (path == t || path.starts_with(t + ".")) return false;
    }
    const ReloadClass reload = reload_class(path);
    return reload == ReloadClass::live || (summary && reload == ReloadClass::live_summary);
  });
  return paths;
}

Config apply_live(const Config& running, const Config& next) {
  Config merged = running;
  merged.access = next.access;
  merged.limits = next.limits;
  merged.forward = next.forward;
  merged.reverse.host_header = next.reverse.host_header;
  merged.cache.heuristic_fraction = next.cache.heuristic_fraction;
  merged.cache.heuristic_max_ms = next.cache.heuristic_max_ms;
  merged.cache.targeted_fields = next.cache.targeted_fields;
  merged.log.level = next.log.level;
  merged.log.access_format = next.log.access_format;
  merged.admin.token = next.admin.token;
  merged.admin.token_file = next.admin.token_file;
  merged.admin.allow = next.admin.allow;
  if (merged.admin.tls && next.admin.tls) merged.admin.tls = next.admin.tls;
  for (std::size_t i = 0; i < merged.listen.size() && i < next.listen.size(); ++i) {
    if (merged.listen[i].tls && next.listen[i].tls) merged.listen[i].tls = next.listen[i].tls;
  }
  auto& cluster = merged.cluster;
  cluster.update_threshold_percent = next.cluster.update_threshold_percent;
  cluster.update_max_interval_ms = next.cluster.update_max_interval_ms;
  cluster.summary_expiry_ms = next.cluster.summary_expiry_ms;
  cluster.peer_timeout_ms = next.cluster.peer_timeout_ms;
  cluster.store_peer_hits = next.cluster.store_peer_hits;
  cluster.miss_policy = next.cluster.miss_policy;
  cluster.peer_grace_ms = next.cluster.peer_grace_ms;
  if (running.cluster.sharing == Sharing::summary && next.cluster.sharing == Sharing::summary) {
    // Live membership: PeerService applies what changed in the list.
    merged.peers = next.peers;
    return merged;
  }
  // ICP's peer list is fixed until a restart; a weight may change (same peer, same place).
  for (std::size_t i = 0; i < merged.peers.size() && i < next.peers.size(); ++i) {
    if (merged.peers[i].id == next.peers[i].id) merged.peers[i].weight = next.peers[i].weight;
  }
  return merged;
}

}  // namespace sumcache::config
