// The cache meta record kept beside each stored object (daemon/cache/cached_meta.h),
// as a hit reads it back from the store or a disk file, and what a hit computes from
// it: the use decision, the current age and the Vary match. Property: a record that
// decodes encodes to one that decodes to the same meta.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "daemon/cache/cached_meta.h"
#include "daemon/http/use_decision.h"
#include "daemon/http/vary.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache::daemon;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto meta = decode_meta(bytes);
  if (!meta) return 0;
  const auto again = decode_meta(encode_meta(*meta));
  SUMCACHE_FUZZ_CHECK(again && *again == *meta);

  static const HeaderList request = {{"Accept-Encoding", "gzip"}, {"Accept-Language", "en"}};
  static const RequestDirectives plain;
  static const RequestDirectives demanding = parse_request_directives(
      "max-age=5, max-stale=10, min-fresh=3, stale-if-error=60, only-if-cached");
  // A fixed now, and the seconds around the response time as far as they exist.
  const auto stored_at = meta->freshness.response_time;
  std::vector<std::chrono::sys_seconds> nows = {
      std::chrono::sys_seconds(std::chrono::seconds(1'700'000'000)), stored_at};
  if (stored_at < std::chrono::sys_seconds::max())
    nows.push_back(stored_at + std::chrono::seconds(1));
  for (const auto now : nows) {
    static_cast<void>(current_age(meta->freshness, now));
    static_cast<void>(decide_use(meta->freshness, meta->directives, plain, now));
    static_cast<void>(decide_use(meta->freshness, meta->directives, demanding, now));
  }
  static_cast<void>(vary_matches(meta->vary, "", request));
  if (const auto key = secondary_key(meta->vary, request)) {
    SUMCACHE_FUZZ_CHECK(vary_matches(meta->vary, *key, request));
  }
  return 0;
}
