#include "tests/support/request_target.h"

#include <cctype>

namespace sumcache::testing {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// "http://host:port/p?q" -> "/p?q"; origin-form comes back as it is.
std::string_view strip_scheme_and_authority(std::string_view target) {
  const auto scheme_end = target.find("://");
  if (target.empty() || target.front() == '/' || scheme_end == std::string_view::npos) {
    return target;
  }
  const auto path_start = target.find_first_of("/?", scheme_end + 3);
  if (path_start == std::string_view::npos) return "/";
  return target.substr(path_start);
}

}  // namespace

std::string percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex_value(text[i + 1]) >= 0 &&
        hex_value(text[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_value(text[i + 1]) * 16 + hex_value(text[i + 2])));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::string percent_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) != 0 || c == '-' || c == '.' || c == '_' || c == '~') {
      out.push_back(c);
    } else {
      out += {'%', kHex[u >> 4], kHex[u & 15]};
    }
  }
  return out;
}

RequestTarget parse_target(std::string_view target) {
  target = strip_scheme_and_authority(target);
  RequestTarget result;
  const auto query_start = target.find('?');
  const std::string_view path = target.substr(0, query_start);
  result.path = path.empty() ? std::string_view("/") : path;
  if (query_start == std::string_view::npos) return result;
  std::string_view query = target.substr(query_start + 1);
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    const auto eq = pair.find('=');
    if (!pair.empty()) {
      result.params[percent_decode(pair.substr(0, eq))] =
          eq == std::string_view::npos ? "" : percent_decode(pair.substr(eq + 1));
    }
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
  }
  return result;
}

}  // namespace sumcache::testing
