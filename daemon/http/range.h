#pragma once
// Range requests served from a stored complete response (RFC 9110 §14).
//
// We answer one byte range; several ranges are served as the full 200, which
// §14.2 allows ("a server MAY ignore the Range header field") and which spares
// multipart/byteranges. A Range we cannot parse is ignored likewise.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "daemon/http/header_list.h"

namespace sumcache::daemon {

struct ByteRange {
  std::uint64_t first = 0;
  std::uint64_t last = 0;  // inclusive
  friend bool operator==(const ByteRange&, const ByteRange&) = default;
};

enum class RangeOutcome {
  full,             // 200 with the whole representation
  partial,          // 206 with `range` and Content-Range
  not_satisfiable,  // 416 with Content-Range "bytes */length"
};

struct RangeDecision {
  RangeOutcome outcome = RangeOutcome::full;
  ByteRange range;            // partial only
  std::string content_range;  // partial and not_satisfiable (§14.4)
};

// A Range field value applied to a representation of `length` bytes
// (§14.1.2): "bytes=first-last", "bytes=first-", "bytes=-suffix".
// A last beyond the end is cut to the end; a suffix longer than the
// representation takes all of it (§14.1.1). Unsatisfiable: first at or past
// the end, or a zero suffix. A zero-length representation satisfies no
// int-range; a suffix range on it gets the (empty) full response.
RangeDecision apply_range(std::string_view range, std::uint64_t length);

// The whole decision for a request answered from `stored_response`: Range is
// honoured for GET only (§14.2), and only when If-Range, if present, holds
// (§13.1.5): a strong ETag equal to the stored one, or a date exactly equal to
// the stored Last-Modified when that is a strong validator (at least 60 s
// before Date, §8.8.2.2). `now` only resolves RFC 850 two-digit years.
// RFC 9110 §14.2: Range is evaluated only when the response without it would
// be a 200; any other stored status is sent whole.
constexpr bool ranges_apply(int stored_status) { return stored_status == 200; }

RangeDecision decide_range(std::string_view method, const HeaderList& request,
                           const HeaderList& stored_response, std::uint64_t length,
                           std::chrono::sys_seconds now);

}  // namespace sumcache::daemon
