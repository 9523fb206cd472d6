#pragma once
// What to answer a client whose request could not be read: a pure mapping
// from the read's error, shared by the proxy and admin sessions.

#include <optional>
#include <string>
#include <utility>

#include "daemon/net/asio.h"

namespace sumcache::daemon {

// The status and reason to answer with, or nothing when the client went away
// (a close or reset mid-head: nobody to answer). A head not received in time
// is 408 (RFC 9110 §15.5.9), one over limits.max_header_bytes 431 (RFC 6585
// §5), a body over limits.max_body_bytes 413 (RFC 9110 §15.5.14), anything
// Beast refuses as malformed 400 (RFC 9112 §2.2).
std::optional<std::pair<beast::http::status, std::string>> read_failure(error_code ec);

}  // namespace sumcache::daemon
