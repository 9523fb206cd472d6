#pragma once
// What the proxy keeps beside a stored response (StoredObject::meta): the
// facts of RFC 9111 §4.2 that do not change while it sits in the store,
// computed once when stored or refreshed, so that a hit decides freshness
// without parsing the stored head. Encoded little-endian with a version byte;
// a record that does not decode, or holds a time or duration no encoder writes
// (which would overflow a hit's age arithmetic), is treated as a miss.

#include <optional>
#include <string>
#include <string_view>

#include "daemon/http/cache_control.h"
#include "daemon/http/freshness.h"

namespace sumcache::daemon {

struct CachedMeta {
  int status = 200;
  StoredFreshness freshness;
  ResponseDirectives directives;  // the scalar directives; field lists are not kept
  std::string vary;               // the stored response's Vary, lines joined
  friend bool operator==(const CachedMeta&, const CachedMeta&) = default;
};

std::string encode_meta(const CachedMeta& meta);
std::optional<CachedMeta> decode_meta(std::string_view bytes);

}  // namespace sumcache::daemon
