// The body of POST /purge (daemon/session/purge_request.h). Input: the Content-Type
// value, a newline, then the body. Properties: a URL or prefix purge names the key
// it would find, so the key is a fixed point of the URL normalization (parsing it
// again gives it back); a tag purge's key is the tag as given, a valid tag; and
// form_decode never grows its input.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "daemon/http/cache_key.h"
#include "daemon/session/purge_request.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache::daemon;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto newline = input.find('\n');
  const std::string_view content_type =
      newline == std::string_view::npos ? std::string_view() : input.substr(0, newline);
  const std::string_view body =
      newline == std::string_view::npos ? input : input.substr(newline + 1);
  std::string why;
  const auto target = parse_purge_body(content_type, body, why);
  if (!target) {
    SUMCACHE_FUZZ_CHECK(!why.empty());
  } else if (target->kind == PurgeKind::tag) {
    SUMCACHE_FUZZ_CHECK(valid_purge_tag(target->cache_key));
    SUMCACHE_FUZZ_CHECK(target->cache_key == target->url);
  } else {
    const auto uri = parse_absolute_uri(target->cache_key);
    SUMCACHE_FUZZ_CHECK(uri.ok());
    SUMCACHE_FUZZ_CHECK(cache_key(*uri) == target->cache_key);
  }
  if (const auto decoded = form_decode(body)) SUMCACHE_FUZZ_CHECK(decoded->size() <= body.size());
  return 0;
}
