#include "daemon/http/targeted_cache_control.h"

#include <algorithm>

#include "daemon/http/field_value.h"
#include "daemon/http/structured_field.h"

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;

// RFC 9213 §2.1 maps a delta-seconds to an Integer; a negative one is not a
// delta-seconds. Large values clamp like Cache-Control's (RFC 9111 §1.2.2).
std::optional<seconds> delta(const SfMember& m) {
  if (m.type != SfType::integer || m.integer < 0) return std::nullopt;
  return std::min(seconds{m.integer}, kMaxDeltaSeconds);
}

// An argument-less directive is Boolean true (RFC 9213 §2.1).
bool flag(const SfMember& m) { return m.type == SfType::boolean && m.boolean; }

// no-cache and private: true, or a String listing field names (the qualified
// forms of RFC 9111 §5.2.2.4 and §5.2.2.7; an empty list is unqualified, as in
// cache_control.cc).
bool qualify(const SfMember& m, bool& unqualified, std::vector<std::string>& fields) {
  if (flag(m)) {
    unqualified = true;
    return true;
  }
  if (m.type != SfType::string) return false;
  const auto names = split_list(m.text);
  if (names.empty()) unqualified = true;
  for (std::string_view name : names) fields.push_back(to_lower(name));
  return true;
}

constexpr std::string_view kKnown[] = {"max-age",          "s-maxage",     "stale-while-revalidate",
                                       "stale-if-error",   "no-cache",     "private",
                                       "no-store",         "public",       "must-revalidate",
                                       "proxy-revalidate", "no-transform", "must-understand",
                                       "immutable"};

bool is_known(std::string_view key) { return std::ranges::find(kKnown, key) != std::end(kKnown); }

// Applies one member; false when a known directive has the wrong type.
bool apply(const SfMember& m, ResponseDirectives& r) {
  const std::string& k = m.key;
  std::optional<seconds>* duration = nullptr;
  if (k == "max-age") duration = &r.max_age;
  if (k == "s-maxage") duration = &r.s_maxage;
  if (k == "stale-while-revalidate") duration = &r.stale_while_revalidate;
  if (k == "stale-if-error") duration = &r.stale_if_error;
  if (duration != nullptr) {
    *duration = delta(m);
    return duration->has_value();
  }
  if (k == "no-cache") return qualify(m, r.no_cache, r.no_cache_fields);
  if (k == "private") return qualify(m, r.is_private, r.private_fields);
  bool* boolean = nullptr;
  if (k == "no-store") boolean = &r.no_store;
  if (k == "public") boolean = &r.is_public;
  if (k == "must-revalidate") boolean = &r.must_revalidate;
  if (k == "proxy-revalidate") boolean = &r.proxy_revalidate;
  if (k == "no-transform") boolean = &r.no_transform;
  if (k == "must-understand") boolean = &r.must_understand;
  if (k == "immutable") boolean = &r.immutable;
  if (boolean == nullptr) return true;  // an unknown directive (RFC 9111 §5.2.3)
  *boolean = flag(m);
  return *boolean;
}

}  // namespace

std::optional<ResponseDirectives> parse_targeted_directives(std::string_view field_value) {
  const auto members = parse_sf_dictionary(field_value);
  if (!members || members->empty()) return std::nullopt;
  ResponseDirectives r;
  // Of a repeated key only the last counts (RFC 8941 §4.2.2): walk backwards
  // and skip keys already applied. Few keys are known, so `applied` stays small.
  std::vector<std::string_view> applied;
  for (auto m = members->rbegin(); m != members->rend(); ++m) {
    if (std::ranges::find(applied, m->key) != applied.end()) continue;
    if (!apply(*m, r)) return std::nullopt;
    if (is_known(m->key)) applied.push_back(m->key);
  }
  r.from_targeted_field = true;
  return r;
}

ChosenDirectives choose_response_directives(const HeaderList& response,
                                            std::span<const std::string> targeted_fields) {
  ChosenDirectives chosen;
  for (const std::string& name : targeted_fields) {
    const auto value = joined_value(response, name);
    if (!value) continue;
    if (auto directives = parse_targeted_directives(*value)) {
      chosen.directives = std::move(*directives);
      return chosen;
    }
    if (chosen.invalid_field.empty() && !trim_ows(*value).empty()) chosen.invalid_field = name;
  }
  chosen.directives = response_directives(response);
  return chosen;
}

ResponseDirectives effective_response_directives(const HeaderList& response,
                                                 std::span<const std::string> targeted_fields) {
  return choose_response_directives(response, targeted_fields).directives;
}

}  // namespace sumcache::daemon
