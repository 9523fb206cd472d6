#include "daemon/cache/squid_digest_reply.h"

#include "daemon/http/http_date.h"
#include "protocol/squid_digest.h"

namespace sumcache::daemon {

std::chrono::sys_seconds squid_digest_expires(std::chrono::system_clock::time_point next_build,
                                              std::chrono::system_clock::time_point now) {
  const auto next = std::chrono::ceil<std::chrono::seconds>(next_build);
  const auto soonest = std::chrono::floor<std::chrono::seconds>(now) + std::chrono::seconds(1);
  return next < soonest ? soonest : next;
}

SquidDigestReply squid_digest_reply(const SquidDigestSnapshot* snapshot, std::string_view method,
                                    std::optional<std::string_view> if_modified_since,
                                    std::chrono::system_clock::time_point now) {
  SquidDigestReply reply;
  const auto now_s = std::chrono::floor<std::chrono::seconds>(now);
  reply.fields.emplace_back("Date", format_http_date(now_s));
  if (method != "GET" && method != "HEAD") {
    reply.status = 405;
    reply.reason = "the Squid digest is served to GET and HEAD only";
    reply.fields.emplace_back("Allow", "GET, HEAD");
    return reply;
  }
  if (snapshot == nullptr) {
    reply.status = 503;
    reply.reason = "the Squid digest is not built yet";
    reply.fields.emplace_back("Retry-After", "1");
    return reply;
  }
  reply.fields.emplace_back("Last-Modified", format_http_date(snapshot->last_modified));
  reply.fields.emplace_back("Expires",
                            format_http_date(squid_digest_expires(snapshot->next_build, now)));
  // RFC 9110 §13.1.3: an invalid date, or one later than now, is ignored.
  if (if_modified_since) {
    const auto since = parse_http_date(*if_modified_since, now_s);
    if (since && *since <= now_s && snapshot->last_modified <= *since) {
      reply.status = 304;
      return reply;
    }
  }
  reply.fields.emplace_back("Content-Type", protocol::kSquidDigestType);
  reply.body = method == "GET";
  return reply;
}

SquidDigestSchedule next_squid_digest_build(std::chrono::steady_clock::time_point started,
                                            std::chrono::steady_clock::time_point ended,
                                            std::chrono::milliseconds interval) {
  if (ended - started <= interval) return {started + interval, false};
  return {ended + interval, true};
}

}  // namespace sumcache::daemon
