#include "daemon/peer/membership_plan.h"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

#include "protocol/node_id.h"

namespace sumcache::daemon {
namespace {

const config::PeerConfig* by_id(const std::vector<config::PeerConfig>& list, std::string_view id) {
  const auto it = std::find_if(list.begin(), list.end(),
                               [id](const config::PeerConfig& p) { return p.id == id; });
  return it == list.end() ? nullptr : &*it;
}

const Member* member(const std::vector<Member>& list, std::string_view id) {
  const auto it =
      std::find_if(list.begin(), list.end(), [id](const Member& m) { return m.config.id == id; });
  return it == list.end() ? nullptr : &*it;
}

// The same peer to talk to: everything but the weight is equal.
bool is_ip_literal(std::string_view text) {
  const std::string s(text);
  unsigned char buffer[16];
  return ::inet_pton(AF_INET, s.c_str(), buffer) == 1 ||
         ::inet_pton(AF_INET6, s.c_str(), buffer) == 1;
}

bool same_peer(config::PeerConfig a, const config::PeerConfig& b) {
  a.weight = b.weight;
  return a == b;
}

}  // namespace

MembershipPlan plan_reload(const std::vector<config::PeerConfig>& before,
                           const std::vector<config::PeerConfig>& after,
                           const std::vector<Member>& current) {
  MembershipPlan plan;
  for (const auto& was : before) {
    if (by_id(after, was.id) == nullptr && member(current, was.id) != nullptr) {
      plan.remove.push_back(was.id);
    }
  }
  for (const auto& is : after) {
    const config::PeerConfig* was = by_id(before, is.id);
    if (was != nullptr && *was == is) continue;  // unchanged in the file
    const Member* now = member(current, is.id);
    if (now == nullptr) {
      plan.add.push_back(is);
    } else if (!same_peer(now->config, is)) {
      plan.remove.push_back(is.id);
      plan.add.push_back(is);
    } else if (now->config.weight != is.weight) {
      plan.reweight.push_back(is);
    }
  }
  return plan;
}

std::optional<JoinRefusal> check_join(const config::PeerConfig& peer, std::string_view self,
                                      const std::vector<Member>& current, std::size_t capacity) {
  if (!protocol::valid_node_id(peer.id)) {
    return JoinRefusal{400, "id \"" + peer.id.substr(0, 64) + "\" is not a node id"};
  }
  if (peer.id == self) return JoinRefusal{400, "\"" + peer.id + "\" is this node's own id"};
  if (member(current, peer.id) != nullptr) {
    return JoinRefusal{409, "peer \"" + peer.id + "\" exists already"};
  }
  for (const Member& m : current) {
    if (m.config.host == peer.host && m.config.http_port == peer.http_port) {
      return JoinRefusal{409, "peer \"" + m.config.id + "\" has the same host and http_port"};
    }
  }
  if (current.size() >= capacity) {
    return JoinRefusal{409, "the peer table is full (" + std::to_string(capacity) + " peers)"};
  }
  return std::nullopt;
}

std::vector<std::string> hosts_file_addresses(std::string_view text, std::string_view name) {
  std::vector<std::string> out;
  const auto same_name = [name](std::string_view field) {
    return field.size() == name.size() &&
           std::equal(field.begin(), field.end(), name.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) ==
                    std::tolower(static_cast<unsigned char>(b));
           });
  };
  while (!text.empty()) {
    const auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
    line = line.substr(0, line.find('#'));
    std::vector<std::string_view> fields;
    for (std::size_t at = 0; at < line.size();) {
      const auto start = line.find_first_not_of(" \t\r", at);
      if (start == std::string_view::npos) break;
      const auto stop = line.find_first_of(" \t\r", start);
      fields.push_back(line.substr(start, stop - start));
      at = stop == std::string_view::npos ? line.size() : stop;
    }
    if (fields.size() < 2 || !is_ip_literal(fields[0])) continue;
    if (std::none_of(fields.begin() + 1, fields.end(), same_name)) continue;
    const std::string address(fields[0]);
    if (std::find(out.begin(), out.end(), address) == out.end()) out.push_back(address);
  }
  return out;
}

DiscoveryPlan plan_discovery(const std::vector<std::string>& resolved,
                             const std::vector<std::string>& known) {
  DiscoveryPlan plan;
  for (const auto& a : resolved) {
    const bool seen = std::find(known.begin(), known.end(), a) != known.end() ||
                      std::find(plan.probe.begin(), plan.probe.end(), a) != plan.probe.end();
    if (!seen) plan.probe.push_back(a);
  }
  for (const auto& a : known) {
    if (std::find(resolved.begin(), resolved.end(), a) == resolved.end()) plan.gone.push_back(a);
  }
  return plan;
}

bool past_grace(std::chrono::steady_clock::time_point down_since,
                std::chrono::steady_clock::time_point now, std::chrono::milliseconds grace) {
  return grace.count() > 0 && now - down_since >= grace;
}

}  // namespace sumcache::daemon
