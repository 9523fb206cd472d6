#include "daemon/admin/purge_request.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "daemon/http/cache_key.h"

namespace sumcache::daemon {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::optional<std::string> url_from_json(std::string_view body, std::string& why) {
  const auto doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    why = "the body is not a JSON object";
    return std::nullopt;
  }
  const auto it = doc.find("url");
  if (it == doc.end() || !it->is_string()) {
    why = "the JSON body has no string \"url\"";
    return std::nullopt;
  }
  return it->get<std::string>();
}

std::optional<std::string> url_from_form(std::string_view body, std::string& why) {
  while (!body.empty()) {
    const auto amp = body.find('&');
    const std::string_view pair = body.substr(0, amp);
    body = amp == std::string_view::npos ? std::string_view() : body.substr(amp + 1);
    const auto eq = pair.find('=');
    if (pair.substr(0, eq) != "url" || eq == std::string_view::npos) continue;
    auto url = form_decode(pair.substr(eq + 1));
    if (!url) why = "malformed %-escape in url";
    return url;
  }
  why = "no url=<absolute URL> in the form body";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> form_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] != '%') {
      out += text[i];
    } else {
      if (i + 2 >= text.size()) return std::nullopt;
      const int hi = hex_value(text[i + 1]);
      const int lo = hex_value(text[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
  }
  return out;
}

std::optional<PurgeTarget> parse_purge_body(std::string_view content_type, std::string_view body,
                                            std::string& why) {
  std::string type(content_type.substr(0, content_type.find(';')));
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool json = type == "application/json" || (content_type.empty() && body.starts_with("{"));
  auto url = json ? url_from_json(body, why) : url_from_form(body, why);
  if (!url) return std::nullopt;
  auto uri = parse_absolute_uri(*url);
  if (!uri) {
    why = "url is not an absolute http(s) URL: " + uri.error().message();
    return std::nullopt;
  }
  return PurgeTarget{std::move(*url), cache_key(*uri)};
}

}  // namespace sumcache::daemon
