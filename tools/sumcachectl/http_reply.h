#pragma once
// An HTTP/1.x response as sumcachectl reads it from the admin endpoint: parsed
// from the bytes received so far. Pure, so the framing rules are unit-tested.

#include <cstddef>
#include <string>
#include <string_view>

#include "filters/result.h"

namespace sumcache::tools {

// Caps: the admin endpoint's largest answer (/peers of a big cluster) is far below these.
inline constexpr std::size_t kMaxReplyHeadBytes = 64 * 1024;
inline constexpr std::size_t kMaxReplyBodyBytes = 16 * 1024 * 1024;

struct HttpReply {
  unsigned status = 0;
  std::string content_type;
  std::string body;  // chunked framing removed
};

// CtlErrc::incomplete_response while more bytes are needed; `at_eof` says the peer closed,
// which ends a body that has neither Content-Length nor chunked framing (RFC 9112 §6.3).
Result<HttpReply> parse_http_reply(std::string_view raw, bool at_eof);

}  // namespace sumcache::tools
