#pragma once
// Node ids as the summary header carries them: 1..64 bytes of [A-Za-z0-9._-],
// so that a log line or a metric label can show them unescaped.

#include <cstddef>
#include <string_view>

namespace sumcache::protocol {

inline constexpr std::size_t kMaxNodeIdBytes = 64;

bool valid_node_id(std::string_view id);

}  // namespace sumcache::protocol
