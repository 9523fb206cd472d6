#include "daemon/http/hop_by_hop.h"

#include <algorithm>
#include <array>
#include <vector>

#include "daemon/http/field_value.h"

namespace sumcache::daemon {
namespace {

constexpr std::array<std::string_view, 9> kHopByHop = {"Connection",
                                                       "Keep-Alive",
                                                       "Proxy-Connection",
                                                       "Proxy-Authenticate",
                                                       "Proxy-Authorization",
                                                       "TE",
                                                       "Trailer",
                                                       "Transfer-Encoding",
                                                       "Upgrade"};

// received-by is the second word of a Via member:
// received-protocol RWS received-by [ RWS comment ].
std::string_view received_by(std::string_view member) {
  const std::size_t gap = member.find_first_of(" \t");
  if (gap == std::string_view::npos) return {};
  member = trim_ows(member.substr(gap));
  return member.substr(0, member.find_first_of(" \t"));
}

}  // namespace

bool is_hop_by_hop(std::string_view name) {
  return std::ranges::any_of(kHopByHop, [name](std::string_view h) { return iequals(h, name); });
}

void add_connection_options(std::string_view connection_value, std::vector<std::string>& out) {
  for (std::string_view name : split_list(connection_value)) out.emplace_back(name);
}

bool is_hop_by_hop(std::string_view name, const std::vector<std::string>& connection_options) {
  return is_hop_by_hop(name) || std::ranges::any_of(connection_options, [name](const auto& n) {
           return iequals(n, name);
         });
}

void remove_hop_by_hop(HeaderList& fields) {
  std::vector<std::string> listed;
  if (auto connection = joined_value(fields, "Connection")) {
    add_connection_options(*connection, listed);
  }
  std::erase_if(fields, [&listed](const HeaderField& f) { return is_hop_by_hop(f.name, listed); });
}

std::string via_entry(std::string_view received_version, std::string_view node_id) {
  return std::string(received_version) + " " + std::string(node_id);
}

std::string via_appended(std::string_view existing, std::string_view member) {
  if (existing.empty()) return std::string(member);
  return std::string(existing) + ", " + std::string(member);
}

void append_via(HeaderList& fields, std::string_view member) {
  const std::string value = via_appended(joined_value(fields, "Via").value_or(""), member);
  remove_field(fields, "Via");
  fields.push_back({"Via", value});
}

bool via_has_node(const HeaderList& fields, std::string_view node_id) {
  const auto via = joined_value(fields, "Via");
  if (!via || node_id.empty()) return false;
  return std::ranges::any_of(split_list(*via), [node_id](std::string_view member) {
    return iequals(received_by(member), node_id);
  });
}

}  // namespace sumcache::daemon
