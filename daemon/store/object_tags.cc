#include "daemon/store/object_tags.h"

#include <algorithm>

namespace sumcache::daemon {
namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool same_name(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(),
                                            [](char x, char y) { return lower(x) == lower(y); });
}

bool separator(char c) { return c == ' ' || c == '\t' || c == ','; }

}  // namespace

void add_tags(std::string_view value, const TagRules& rules, ObjectTags& out) {
  std::size_t i = 0;
  while (i < value.size()) {
    while (i < value.size() && separator(value[i])) ++i;
    std::size_t end = i;
    while (end < value.size() && !separator(value[end])) ++end;
    if (end > i) {
      const std::string_view tag = value.substr(i, end - i);
      if (tag.size() > rules.max_tag_bytes) {
        ++out.too_long;
      } else if (std::find(out.tags.begin(), out.tags.end(), tag) == out.tags.end()) {
        // Checked per tag so that a hostile field of many tags costs at most max_tags + 1 copies.
        if (out.tags.size() == rules.max_tags) {
          out.too_many = true;
          return;
        }
        out.tags.emplace_back(tag);
      }
    }
    i = end;
  }
}

ObjectTags object_tags(std::string_view head, const TagRules& rules) {
  ObjectTags out;
  if (rules.field.empty()) return out;
  std::size_t pos = head.find("\r\n");
  while (pos != std::string_view::npos && !out.too_many) {
    const std::size_t start = pos + 2;
    pos = head.find("\r\n", start);
    const std::string_view line =
        head.substr(start, pos == std::string_view::npos ? pos : pos - start);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos || !same_name(line.substr(0, colon), rules.field)) continue;
    add_tags(line.substr(colon + 1), rules, out);
  }
  std::sort(out.tags.begin(), out.tags.end());
  return out;
}

}  // namespace sumcache::daemon
