#include "daemon/store/object_path.h"

namespace sumcache::daemon {
namespace {

void append_hex(std::string& out, std::uint64_t v, int digits) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (int i = digits - 1; i >= 0; --i) out.push_back(kDigits[(v >> (4 * i)) & 0xF]);
}

std::optional<std::uint64_t> parse_hex(std::string_view s) {
  std::uint64_t v = 0;
  for (char c : s) {
    unsigned d = 0;
    if (c >= '0' && c <= '9') {
      d = static_cast<unsigned>(c - '0');
    } else if (c >= 'a' && c <= 'f') {
      d = static_cast<unsigned>(c - 'a' + 10);
    } else {
      return std::nullopt;
    }
    v = (v << 4) | d;
  }
  return v;
}

}  // namespace

std::string object_file_path(std::string_view root, const filters::Hash128& hash,
                             std::uint64_t variant_hash) {
  std::string path;
  path.reserve(root.size() + 56);
  path.append(root);
  path.push_back('/');
  append_hex(path, hash.h1 >> 60, 1);
  path.push_back('/');
  append_hex(path, (hash.h1 >> 52) & 0xFF, 2);
  path.push_back('/');
  append_hex(path, hash.h1, 16);
  append_hex(path, hash.h2, 16);
  if (variant_hash != 0) {
    path.push_back('.');
    append_hex(path, variant_hash, 16);
  }
  return path;
}

std::optional<ObjectName> parse_object_path(std::string_view relative) {
  // "a/bc/" or the legacy "ab/cd/", then 32 hex, optionally "." + 16 hex.
  const bool legacy = relative.size() > 2 && relative[2] == '/';
  const std::size_t dir1_len = legacy ? 2 : 1;
  const std::size_t prefix = dir1_len + 4;
  if (relative.size() != prefix + 32 && relative.size() != prefix + 49) return std::nullopt;
  if (relative[dir1_len] != '/' || relative[prefix - 1] != '/') return std::nullopt;
  const auto dir1 = parse_hex(relative.substr(0, dir1_len));
  const auto dir2 = parse_hex(relative.substr(dir1_len + 1, 2));
  const auto h1 = parse_hex(relative.substr(prefix, 16));
  const auto h2 = parse_hex(relative.substr(prefix + 16, 16));
  if (!dir1 || !dir2 || !h1 || !h2) return std::nullopt;
  const bool placed = legacy ? *dir1 == (*h1 >> 56) && *dir2 == ((*h1 >> 48) & 0xFF)
                             : *dir1 == (*h1 >> 60) && *dir2 == ((*h1 >> 52) & 0xFF);
  if (!placed) return std::nullopt;
  ObjectName name{{*h1, *h2}, 0, legacy};
  if (relative.size() == prefix + 49) {
    if (relative[prefix + 32] != '.') return std::nullopt;
    const auto v = parse_hex(relative.substr(prefix + 33));
    if (!v || *v == 0) return std::nullopt;
    name.variant_hash = *v;
  }
  return name;
}

}  // namespace sumcache::daemon
