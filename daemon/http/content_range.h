#pragma once
// Content-Range of a 206 a cache may store (RFC 9110 §14.4, §15.3.7), read
// strictly: a cache that stores a range it misread serves wrong bytes later.

#include <cstdint>
#include <optional>
#include <string_view>

#include "daemon/http/header_list.h"

namespace sumcache::daemon {

struct ContentRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;      // inclusive
  std::uint64_t complete = 0;  // the representation's length
  std::uint64_t length() const { return last - first + 1; }
  friend bool operator==(const ContentRange&, const ContentRange&) = default;
};

// §14.4: "bytes" SP first-pos "-" last-pos "/" complete-length, digits only,
// with first <= last < complete. nullopt for anything else, including an
// unknown complete length ("*") and an unsatisfied-range ("*/length").
std::optional<ContentRange> parse_content_range(std::string_view value);

// Why a 206 is or is not kept as a stored partial response.
enum class PartialCheck {
  storable,
  multipart,        // several ranges (multipart/byteranges, §14.6): not kept
  unknown_length,   // "bytes first-last/*": the ranges cannot be placed in a whole
  too_large,        // complete length above max_object_bytes
  malformed,        // no Content-Range, several, or one that does not parse
  length_mismatch,  // Content-Length differs from the range's length
};
std::string_view to_string(PartialCheck check);

// True for the checks that show an origin broke §14.4 or §15.3.7 (a
// degraded path to count), false for 206s that are valid but not kept.
bool is_protocol_error(PartialCheck check);

struct PartialFacts {
  PartialCheck check = PartialCheck::malformed;
  ContentRange range;  // storable only
};

// The checks a 206's head must pass before its body is read for the store
// (§15.3.7.1): one valid Content-Range whose complete length is within
// `max_object_bytes`, and a Content-Length, if any, equal to its length.
PartialFacts check_partial_response(const HeaderList& response, std::uint64_t max_object_bytes);

}  // namespace sumcache::daemon
