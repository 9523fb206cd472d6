#include "daemon/http/cache_control.h"

#include <algorithm>

#include "daemon/http/field_value.h"

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;

struct Directive {
  std::string name;                  // lower-case
  std::optional<std::string> value;  // unquoted argument, if any
};

// cache-directive = token [ "=" ( token / quoted-string ) ] (RFC 9111 §5.2).
// OWS around "=" is tolerated although the grammar has none.
std::vector<Directive> parse_directives(std::string_view field_value) {
  std::vector<Directive> directives;
  for (std::string_view member : split_list(field_value)) {
    const std::size_t eq = member.find('=');
    Directive d{to_lower(trim_ows(member.substr(0, eq))), std::nullopt};
    if (d.name.empty()) continue;
    if (eq != std::string_view::npos) d.value = unquote(trim_ows(member.substr(eq + 1)));
    directives.push_back(std::move(d));
  }
  return directives;
}

std::optional<seconds> delta(const Directive& d) {
  return d.value ? parse_delta_seconds(*d.value) : std::nullopt;
}

// §4.2.1: an invalid value, or a repeat with a different value, makes the
// response stale rather than picking one of them.
void set_freshness(std::optional<seconds>& slot, std::optional<seconds> parsed) {
  if (!parsed || (slot && *slot != *parsed)) {
    slot = seconds{0};
  } else {
    slot = parsed;
  }
}

// Repeats of a permission keep the smallest; invalid values grant nothing.
void keep_smallest(std::optional<seconds>& slot, std::optional<seconds> parsed) {
  if (parsed) slot = slot ? std::min(*slot, *parsed) : *parsed;
}

// no-cache="a, B" and private="a" list field names (§5.2.2.4, §5.2.2.7).
// An empty list is read as the unqualified form, the more restrictive one.
void qualify(const Directive& d, bool& unqualified, std::vector<std::string>& fields) {
  if (!d.value || split_list(*d.value).empty()) {
    unqualified = true;
    return;
  }
  for (std::string_view name : split_list(*d.value)) fields.push_back(to_lower(name));
}

}  // namespace

ResponseDirectives parse_response_directives(std::string_view cache_control) {
  ResponseDirectives r;
  for (const Directive& d : parse_directives(cache_control)) {
    const std::string& n = d.name;
    if (n == "max-age") {
      set_freshness(r.max_age, delta(d));
    } else if (n == "s-maxage") {
      set_freshness(r.s_maxage, delta(d));
    } else if (n == "no-cache") {
      qualify(d, r.no_cache, r.no_cache_fields);
    } else if (n == "private") {
      qualify(d, r.is_private, r.private_fields);
    } else if (n == "stale-while-revalidate") {
      keep_smallest(r.stale_while_revalidate, delta(d));
    } else if (n == "stale-if-error") {
      keep_smallest(r.stale_if_error, delta(d));
    } else {
      r.no_store |= n == "no-store";
      r.is_public |= n == "public";
      r.must_revalidate |= n == "must-revalidate";
      r.proxy_revalidate |= n == "proxy-revalidate";
      r.no_transform |= n == "no-transform";
      r.must_understand |= n == "must-understand";
      r.immutable |= n == "immutable";
    }
  }
  return r;
}

RequestDirectives parse_request_directives(std::string_view cache_control) {
  RequestDirectives r;
  for (const Directive& d : parse_directives(cache_control)) {
    const std::string& n = d.name;
    if (n == "max-age") {
      // Invalid reads as max-age=0: the client wants a validated response.
      keep_smallest(r.max_age, delta(d).value_or(seconds{0}));
    } else if (n == "max-stale") {
      if (!d.value) {
        r.max_stale = true;
      } else if (auto limit = delta(d)) {
        r.max_stale = true;
        keep_smallest(r.max_stale_limit, limit);
      }
    } else if (n == "min-fresh") {
      if (auto v = delta(d)) r.min_fresh = r.min_fresh ? std::max(*r.min_fresh, *v) : *v;
    } else if (n == "stale-if-error") {
      keep_smallest(r.stale_if_error, delta(d));
    } else {
      r.no_cache |= n == "no-cache";
      r.no_store |= n == "no-store";
      r.no_transform |= n == "no-transform";
      r.only_if_cached |= n == "only-if-cached";
    }
  }
  return r;
}

ResponseDirectives response_directives(const HeaderList& response) {
  return parse_response_directives(joined_value(response, "Cache-Control").value_or(""));
}

RequestDirectives request_directives(const HeaderList& request) {
  if (auto cache_control = joined_value(request, "Cache-Control")) {
    return parse_request_directives(*cache_control);
  }
  RequestDirectives r;
  if (auto pragma = joined_value(request, "Pragma")) {
    for (std::string_view member : split_list(*pragma)) r.no_cache |= iequals(member, "no-cache");
  }
  return r;
}

}  // namespace sumcache::daemon
