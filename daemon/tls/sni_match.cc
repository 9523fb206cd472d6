#include "daemon/tls/sni_match.h"

#include <algorithm>
#include <cctype>

namespace sumcache::daemon {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!out.empty() && out.back() == '.') out.pop_back();  // an absolute name is the same name
  return out;
}

bool wildcard_covers(std::string_view pattern, std::string_view name) {
  if (!pattern.starts_with("*.")) return false;
  const std::string_view suffix = pattern.substr(1);  // ".example.com"
  if (name.size() <= suffix.size() || !name.ends_with(suffix)) return false;
  const std::string_view label = name.substr(0, name.size() - suffix.size());
  return label.find('.') == std::string_view::npos;
}

}  // namespace

std::size_t pick_certificate(const std::vector<std::vector<std::string>>& names,
                             std::string_view server_name) {
  if (server_name.empty()) return 0;
  const std::string name = lower(server_name);
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (std::find(names[i].begin(), names[i].end(), name) != names[i].end()) return i;
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (const std::string& pattern : names[i]) {
      if (wildcard_covers(pattern, name)) return i;
    }
  }
  return 0;
}

}  // namespace sumcache::daemon
