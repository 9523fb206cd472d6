#include "daemon/observe/http2_stats.h"

namespace sumcache::daemon {

const char* to_string(Http2Goaway why) {
  switch (why) {
    case Http2Goaway::rapid_reset:
      return "rapid_reset";
    case Http2Goaway::control_flood:
      return "control_flood";
    case Http2Goaway::continuation_flood:
      return "continuation_flood";
    case Http2Goaway::protocol_error:
      return "protocol_error";
    case Http2Goaway::header_timeout:
      return "header_timeout";
    case Http2Goaway::idle:
      return "idle";
  }
  return "unknown";
}

const char* to_string(Http2Reset why) {
  switch (why) {
    case Http2Reset::header_too_large:
      return "header_too_large";
    case Http2Reset::body_too_large:
      return "body_too_large";
    case Http2Reset::stalled:
      return "stalled";
    case Http2Reset::incomplete:
      return "incomplete";
  }
  return "unknown";
}

}  // namespace sumcache::daemon
