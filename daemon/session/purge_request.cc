#include "daemon/session/purge_request.h"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "daemon/http/cache_key.h"
#include "protocol/invalidation_message.h"

namespace sumcache::daemon {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr PurgeKind kKinds[] = {PurgeKind::url, PurgeKind::tag, PurgeKind::prefix};

struct Named {
  PurgeKind kind;
  std::string value;
};

std::optional<Named> target_from_json(std::string_view body, std::string& why) {
  const auto doc = nlohmann::json::parse(body, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    why = "the body is not a JSON object";
    return std::nullopt;
  }
  std::optional<Named> found;
  for (PurgeKind kind : kKinds) {
    const auto it = doc.find(purge_member(kind));
    if (it == doc.end()) continue;
    if (!it->is_string() || found) {
      why = "the JSON body needs exactly one string \"url\", \"tag\" or \"prefix\"";
      return std::nullopt;
    }
    found = Named{kind, it->get<std::string>()};
  }
  if (!found) why = "the JSON body has no string \"url\", \"tag\" or \"prefix\"";
  return found;
}

std::optional<Named> target_from_form(std::string_view body, std::string& why) {
  while (!body.empty()) {
    const auto amp = body.find('&');
    const std::string_view pair = body.substr(0, amp);
    body = amp == std::string_view::npos ? std::string_view() : body.substr(amp + 1);
    const auto eq = pair.find('=');
    if (eq == std::string_view::npos) continue;
    for (PurgeKind kind : kKinds) {
      if (pair.substr(0, eq) != purge_member(kind)) continue;
      auto value = form_decode(pair.substr(eq + 1));
      if (!value) {
        why = std::string("malformed %-escape in ") + purge_member(kind);
        return std::nullopt;
      }
      return Named{kind, std::move(*value)};
    }
  }
  why = "no url=<absolute URL>, tag=<tag> or prefix=<URL prefix> in the form body";
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

bool valid_purge_tag(std::string_view tag) {
  if (tag.empty() || tag.size() > protocol::kMaxInvalidationTagBytes) return false;
  return std::all_of(tag.begin(), tag.end(), [](char c) {
    const auto b = static_cast<unsigned char>(c);
    return (b >= 0x21 && b <= 0x7E && c != ',') || b >= 0x80;
  });
}

const char* purge_member(PurgeKind kind) {
  switch (kind) {
    case PurgeKind::tag:
      return "tag";
    case PurgeKind::prefix:
      return "prefix";
    case PurgeKind::url:
      break;
  }
  return "url";
}

std::optional<PurgeTarget> parse_purge_body(std::string_view content_type, std::string_view body,
                                            std::string& why) {
  std::string type(content_type.substr(0, content_type.find(';')));
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool json = type == "application/json" || (content_type.empty() && body.starts_with("{"));
  auto named = json ? target_from_json(body, why) : target_from_form(body, why);
  if (!named) return std::nullopt;
  if (named->kind == PurgeKind::tag) {
    if (!valid_purge_tag(named->value)) {
      why = "tag must be 1 to " + std::to_string(protocol::kMaxInvalidationTagBytes) +
            " bytes with no space, comma or control character";
      return std::nullopt;
    }
    return PurgeTarget{PurgeKind::tag, named->value, named->value};
  }
  // A prefix is keyed as a URL is, so that it compares with stored keys byte
  // for byte: "http://Host:80/a/" names the keys under "http://host/a/".
  auto uri = parse_absolute_uri(named->value);
  if (!uri) {
    why = std::string(purge_member(named->kind)) +
          " is not an absolute http(s) URL: " + uri.error().message();
    return std::nullopt;
  }
  std::string key = cache_key(*uri);
  return PurgeTarget{named->kind, std::move(named->value), std::move(key)};
}

}  // namespace sumcache::daemon
