#include "daemon/peer/redis_keys.h"

#include <charconv>

namespace sumcache::daemon {

std::string RedisKeys::full(std::string_view node) const {
  return prefix_ + ":node:" + std::string(node) + ":full";
}

std::string RedisKeys::deltas(std::string_view node) const {
  return prefix_ + ":node:" + std::string(node) + ":deltas";
}

std::size_t redis_shard(std::string_view node, std::size_t servers) {
  if (servers <= 1) return 0;
  // FNV-1a 64 (Fowler, Noll, Vo): every node computes the same server for an
  // id, whatever its build; the offset basis and prime are the published ones.
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : node) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return static_cast<std::size_t>(h % servers);
}

std::string stream_id(std::uint64_t sequence) { return std::to_string(sequence) + "-0"; }

std::optional<std::uint64_t> parse_stream_id(std::string_view id) {
  const auto dash = id.find('-');
  if (dash == std::string_view::npos || id.substr(dash) != "-0") return std::nullopt;
  const std::string_view digits = id.substr(0, dash);
  if (digits.empty() || (digits.size() > 1 && digits.front() == '0')) return std::nullopt;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

}  // namespace sumcache::daemon
