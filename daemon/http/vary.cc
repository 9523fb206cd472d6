#include "daemon/http/vary.h"

#include <algorithm>
#include <vector>

#include "daemon/http/accept_language.h"
#include "daemon/http/field_value.h"

namespace sumcache::daemon {
namespace {

// One SP for each run of SP/HTAB outside quoted strings (RFC 9110 §5.6.3:
// whitespace where the syntax allows it carries no meaning).
std::string collapse_whitespace(std::string_view member) {
  std::string out;
  bool in_quotes = false;
  for (std::size_t i = 0; i < member.size(); ++i) {
    const char c = member[i];
    if (!in_quotes && (c == ' ' || c == '\t')) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
      continue;
    }
    out.push_back(c);
    if (c == '"') {
      in_quotes = !in_quotes;
    } else if (in_quotes && c == '\\' && i + 1 < member.size()) {
      out.push_back(member[++i]);
    }
  }
  return out;
}

std::string normalize_value(std::string_view value) {
  std::string out;
  for (std::string_view member : split_list(value)) {
    if (!out.empty()) out += ", ";
    out += collapse_whitespace(member);
  }
  return out;
}

// Accept-Language has a canonical form of its own (accept_language.h); a value
// outside its syntax gets the generic normalisation.
std::string normalize_field(std::string_view name, std::string_view value) {
  if (name == "accept-language") {
    if (auto normalized = normalize_accept_language(value)) return std::move(*normalized);
  }
  return normalize_value(value);
}

}  // namespace

bool vary_is_star(std::string_view vary) {
  return std::ranges::any_of(split_list(vary), [](std::string_view m) { return m == "*"; });
}

std::optional<std::string> secondary_key(std::string_view vary, const HeaderList& request) {
  if (vary_is_star(vary)) return std::nullopt;
  std::string key;
  std::vector<std::string> seen;
  for (std::string_view member : split_list(vary)) {
    std::string name = to_lower(member);
    if (std::ranges::find(seen, name) != seen.end()) continue;
    key += name;
    if (auto value = joined_value(request, name)) key += ":" + normalize_field(name, *value);
    key += '\n';
    seen.push_back(std::move(name));
  }
  return key;
}

std::string vary_fields(std::string_view stored_key) {
  std::string fields;
  while (!stored_key.empty()) {
    const std::size_t end = std::min(stored_key.find('\n'), stored_key.size());
    const std::string_view line = stored_key.substr(0, end);
    if (!fields.empty()) fields += ", ";
    fields += line.substr(0, line.find(':'));
    stored_key.remove_prefix(std::min(end + 1, stored_key.size()));
  }
  return fields;
}

bool vary_matches(std::string_view vary, std::string_view stored_key, const HeaderList& request) {
  const auto key = secondary_key(vary, request);
  return key && *key == stored_key;
}

}  // namespace sumcache::daemon
