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
  append_hex(path, hash.h1 >> 56, 2);
  path.push_back('/');
  append_hex(path, (hash.h1 >> 48) & 0xFF, 2);
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
  // "ab/cd/" + 32 hex, optionally "." + 16 hex.
  if (relative.size() != 38 && relative.size() != 55) return std::nullopt;
  if (relative[2] != '/' || relative[5] != '/') return std::nullopt;
  const auto dir1 = parse_hex(relative.substr(0, 2));
  const auto dir2 = parse_hex(relative.substr(3, 2));
  const auto h1 = parse_hex(relative.substr(6, 16));
  const auto h2 = parse_hex(relative.substr(22, 16));
  if (!dir1 || !dir2 || !h1 || !h2) return std::nullopt;
  if (*dir1 != (*h1 >> 56) || *dir2 != ((*h1 >> 48) & 0xFF)) return std::nullopt;
  ObjectName name{{*h1, *h2}, 0};
  if (relative.size() == 55) {
    if (relative[38] != '.') return std::nullopt;
    const auto v = parse_hex(relative.substr(39));
    if (!v || *v == 0) return std::nullopt;
    name.variant_hash = *v;
  }
  return name;
}

}  // namespace sumcache::daemon
