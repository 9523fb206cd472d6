#pragma once
// What the store keeps of a response: the head as clients will get it (fields
// per RFC 9111 §3.1, our Via, an exact Content-Length, no Age: that is
// computed per hit) and the meta with the freshness facts (§4.2).

#include <span>
#include <string>

#include "daemon/cache/cached_meta.h"
#include "daemon/http/cache_key.h"
#include "daemon/http/header_list.h"
#include "daemon/store/stored_object.h"

namespace sumcache::daemon {

struct ResponseFacts {
  int status = 200;
  std::string reason;
  HeaderList fields;  // as received, hop-by-hop fields included
  ResponseDirectives directives;
  ExchangeTimes times;
};

// The secondary key (RFC 9111 §4.1) that a response to a GET with these
// fields and directives is stored under, or nullopt when it must not be
// stored (§3) or its Vary names a field no variant can be keyed on.
// `partial_allowed`: a 206 to a single-range GET may be kept (§3.3,
// partial_table.h).
std::optional<std::string> fill_variant(const HeaderList& request_fields,
                                        const RequestDirectives& request_directives,
                                        const ResponseFacts& response,
                                        std::uint64_t max_object_bytes,
                                        bool partial_allowed = false);

// The freshness facts kept beside a response (cached_meta.h).
CachedMeta meta_of(const ResponseFacts& response, const HeuristicPolicy& policy);

// The same for a response to POST, stored under its target URI for later GETs
// when post_storability allows (RFC 9110 §9.3.3, daemon/http/post_cacheability.h).
std::optional<std::string> post_fill_variant(const HeaderList& request_fields,
                                             const RequestDirectives& request_directives,
                                             const ResponseFacts& response,
                                             std::uint64_t max_object_bytes,
                                             const EffectiveUri& target);

// The head and meta for a response whose body has `body_size` bytes; the
// `tag_field` lines (cache.tag_header) go last (move_field_last).
std::pair<std::string, std::string> stored_head_and_meta(const ResponseFacts& response,
                                                         std::uint64_t body_size,
                                                         std::string_view via,
                                                         const HeuristicPolicy& policy,
                                                         std::string_view tag_field = {});

// After a 304 (§4.3.4): the stored fields freshened by the 304's, or nullopt
// when the 304 describes another representation or changes Vary (§4.1): the
// caller then fetches the response whole. The directives of the merged fields
// are read through `targeted_fields` (cache.targeted_fields, RFC 9213).
std::optional<std::pair<std::string, std::string>> refreshed_head_and_meta(
    std::string_view stored_head, const CachedMeta& meta, const HeaderList& not_modified,
    ExchangeTimes times, const HeuristicPolicy& policy,
    std::span<const std::string> targeted_fields, std::string_view tag_field = {});

ExchangeTimes exchange_times(std::chrono::system_clock::time_point request_time,
                             std::chrono::system_clock::time_point response_time);

}  // namespace sumcache::daemon
