#include "protocol/node_id.h"

#include <algorithm>

namespace sumcache::protocol {

bool valid_node_id(std::string_view id) {
  if (id.empty() || id.size() > kMaxNodeIdBytes) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

}  // namespace sumcache::protocol
