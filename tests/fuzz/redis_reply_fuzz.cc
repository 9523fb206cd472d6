// Redis replies as RedisConnection reads them (daemon/redis/redis_reply_reader.h):
// hiredis's RESP reader with our object functions, under small limits so that
// the refusals are reached. Properties: whether the bytes are refused, and the
// replies delivered, do not depend on how the bytes are split (a read boundary
// can fall anywhere; which refusal comes first may), and nothing delivered
// breaks the limits.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "daemon/redis/redis_reply_reader.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache::daemon;

namespace {

constexpr RedisReplyLimits kLimits{.max_reply_bytes = 4096, .max_elements = 64};

bool same(const RedisReply& a, const RedisReply& b) {
  if (a.type != b.type || a.str != b.str || a.integer != b.integer ||
      a.elements.size() != b.elements.size())
    return false;
  for (std::size_t i = 0; i < a.elements.size(); ++i)
    if (!same(a.elements[i], b.elements[i])) return false;
  return true;
}

void check_limits(const RedisReply& r) {
  SUMCACHE_FUZZ_CHECK(r.str.size() <= kLimits.max_reply_bytes);
  SUMCACHE_FUZZ_CHECK(r.elements.size() <= kLimits.max_elements);
  for (const auto& e : r.elements) check_limits(e);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  // The first byte picks where the second read begins.
  const std::size_t split = data[0] % size;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);

  RedisReplyReader whole(kLimits);
  std::vector<RedisReply> at_once;
  const auto ec_whole = whole.feed(bytes, at_once);

  RedisReplyReader parts(kLimits);
  std::vector<RedisReply> in_parts;
  auto ec_parts = parts.feed(bytes.substr(0, split), in_parts);
  if (!ec_parts) ec_parts = parts.feed(bytes.substr(split), in_parts);

  SUMCACHE_FUZZ_CHECK(static_cast<bool>(ec_whole) == static_cast<bool>(ec_parts));
  if (!ec_whole) SUMCACHE_FUZZ_CHECK(at_once.size() == in_parts.size());
  const std::size_t common = std::min(at_once.size(), in_parts.size());
  for (std::size_t i = 0; i < common; ++i) SUMCACHE_FUZZ_CHECK(same(at_once[i], in_parts[i]));
  for (const auto& r : at_once) check_limits(r);
  for (const auto& r : in_parts) check_limits(r);
  if (!ec_whole) SUMCACHE_FUZZ_CHECK(whole.pending_bytes() <= kLimits.max_reply_bytes);
  return 0;
}
