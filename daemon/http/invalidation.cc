#include "daemon/http/invalidation.h"

#include <algorithm>

#include "daemon/http/uri_reference.h"

namespace sumcache::daemon {

bool is_safe_method(std::string_view method) {
  return method == "GET" || method == "HEAD" || method == "OPTIONS" || method == "TRACE";
}

std::vector<std::string> invalidation_keys(std::string_view method, int status,
                                           const EffectiveUri& target, const HeaderList& response) {
  std::vector<std::string> keys;
  if (is_safe_method(method) || status < 200 || status > 399) return keys;
  keys.push_back(cache_key(target));
  for (std::string_view name : {"Location", "Content-Location"}) {
    const auto value = first_value(response, name);
    if (!value) continue;
    const auto uri = resolve_reference(target, *value);
    if (!uri || !same_origin(*uri, target)) continue;
    std::string key = cache_key(*uri);
    if (std::ranges::find(keys, key) == keys.end()) keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace sumcache::daemon
