#include "daemon/http/field_value.h"

#include <algorithm>

namespace sumcache::daemon {
namespace {

bool is_ows(char c) { return c == ' ' || c == '\t'; }

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

std::string_view trim_ows(std::string_view text) {
  while (!text.empty() && is_ows(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_ows(text.back())) text.remove_suffix(1);
  return text;
}

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) { return lower(x) == lower(y); });
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = lower(c);
  return out;
}

std::vector<std::string_view> split_list(std::string_view value) {
  std::vector<std::string_view> members;
  bool in_quotes = false;
  int comment_depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= value.size(); ++i) {
    if (i == value.size() || (value[i] == ',' && !in_quotes && comment_depth == 0)) {
      std::string_view member = trim_ows(value.substr(start, i - start));
      if (!member.empty()) members.push_back(member);
      start = i + 1;
      continue;
    }
    const char c = value[i];
    if (in_quotes) {
      if (c == '\\') {
        ++i;  // quoted-pair: the next octet is literal
      } else if (c == '"') {
        in_quotes = false;
      }
    } else if (c == '"' && comment_depth == 0) {
      in_quotes = true;
    } else if (c == '(') {
      ++comment_depth;
    } else if (c == ')' && comment_depth > 0) {
      --comment_depth;
    }
  }
  return members;
}

std::optional<std::chrono::seconds> parse_delta_seconds(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = std::min<std::int64_t>(value * 10 + (c - '0'), kMaxDeltaSeconds.count());
  }
  return std::chrono::seconds{value};
}

std::optional<std::uint64_t> parse_uint64(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::string unquote(std::string_view text) {
  if (text.size() < 2 || text.front() != '"' || text.back() != '"') return std::string(text);
  std::string out;
  for (std::size_t i = 1; i + 1 < text.size(); ++i) {
    if (text[i] == '\\' && i + 2 < text.size()) ++i;
    out.push_back(text[i]);
  }
  return out;
}

}  // namespace sumcache::daemon
