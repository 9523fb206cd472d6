#pragma once
// Reading a whole upstream body into memory, bounded: for the paths that must
// have all of it before they answer or store (a background revalidation, the
// missing part of a stored partial response).

#include <cstdint>
#include <string>

#include "daemon/exchange/upstream_exchange.h"

namespace sumcache::daemon {

// Reads the rest of `res`'s body into `out`, at most `limit` bytes: a larger
// declared length is refused before any body byte is read, a larger body as
// soon as it shows (beast::http::error::body_limit).
awaitable<error_code> read_whole_body(UpstreamResponse& res, const config::LimitsConfig& limits,
                                      std::uint64_t limit, std::string& out);

}  // namespace sumcache::daemon
