#include "tests/support/echo_format.h"

#include <cstdio>
#include <nlohmann/json.hpp>

namespace sumcache::testing {

namespace {

// A JSON string whose code points are the bytes of `bytes` (Latin-1).
std::string json_string(std::string_view bytes) {
  std::string out = "\"";
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (u < 0x20 || u >= 0x7f) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04x", u);
      out += escape;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

// Undoes json_string after nlohmann has turned its \u00XX escapes into UTF-8:
// false if a code point above U+00FF shows the text was not written by it.
bool latin1_from_utf8(const std::string& utf8, std::string& out) {
  out.clear();
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    if (c < 0x80) {
      out += static_cast<char>(c);
    } else if ((c == 0xc2 || c == 0xc3) && i + 1 < utf8.size()) {
      out += static_cast<char>(((c & 0x03) << 6) | (static_cast<unsigned char>(utf8[++i]) & 0x3f));
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string format_echo(const EchoedRequest& request) {
  std::string out = "{\"method\":" + json_string(request.method);
  out += ",\"target\":" + json_string(request.target);
  out += ",\"version\":" + json_string(request.version);
  out += ",\"headers\":[";
  for (std::size_t i = 0; i < request.headers.size(); ++i) {
    out += i == 0 ? "[" : ",[";
    out += json_string(request.headers[i].first) + "," + json_string(request.headers[i].second);
    out += "]";
  }
  out += "],\"body_length\":" + std::to_string(request.body.size());
  out += ",\"body\":" + json_string(request.body) + "}\n";
  return out;
}

Result<EchoedRequest> parse_echo(std::string_view json) {
  const auto doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  const auto bad = std::make_error_code(std::errc::bad_message);
  if (!doc.is_object()) return bad;
  EchoedRequest request;
  // at() and get() throw on a missing or mistyped field: JSON that is not ours.
  try {
    auto bytes = [](const nlohmann::json& value, std::string& out) {
      return latin1_from_utf8(value.get<std::string>(), out);
    };
    bool ok = bytes(doc.at("method"), request.method) && bytes(doc.at("target"), request.target) &&
              bytes(doc.at("version"), request.version) && bytes(doc.at("body"), request.body);
    for (const auto& field : doc.at("headers")) {
      auto& [name, value] = request.headers.emplace_back();
      ok = ok && bytes(field.at(0), name) && bytes(field.at(1), value);
    }
    if (!ok || request.body.size() != doc.at("body_length").get<std::size_t>()) return bad;
  } catch (const nlohmann::json::exception&) {
    return bad;
  }
  return request;
}

}  // namespace sumcache::testing
