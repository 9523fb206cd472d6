#include "daemon/cache/cached_meta.h"

#include <vector>

#include "filters/byte_io.h"

namespace sumcache::daemon {
namespace {

using filters::ByteReader;
using filters::put_le;

constexpr std::uint8_t kMetaVersion = 1;
constexpr std::uint64_t kNone = ~std::uint64_t{0};
constexpr std::size_t kMaxVaryBytes = 64 * 1024;
// Beyond any time or duration the encoder writes (HTTP dates end in 9999 and delta-seconds
// are capped at 2^31, RFC 9111 §1.2.2), and small enough that the age and freshness sums
// of a hit (freshness.cc, use_decision.cc) cannot overflow: a record past it is damaged.
constexpr std::int64_t kMaxSeconds = std::int64_t{1} << 40;

enum Flag : std::uint16_t {
  kNoCache = 1 << 0,
  kNoStore = 1 << 1,
  kPrivate = 1 << 2,
  kPublic = 1 << 3,
  kMustRevalidate = 1 << 4,
  kProxyRevalidate = 1 << 5,
  kNoTransform = 1 << 6,
  kMustUnderstand = 1 << 7,
  kImmutable = 1 << 8,
  kHasValidator = 1 << 9,
};

void put_seconds(std::vector<std::uint8_t>& out, std::optional<std::chrono::seconds> s) {
  put_le(out, s ? static_cast<std::uint64_t>(s->count()) : kNone);
}

bool in_range(std::chrono::seconds s, std::int64_t low) {
  return s.count() >= low && s.count() <= kMaxSeconds;
}

std::optional<std::chrono::seconds> get_seconds(ByteReader& in) {
  const std::uint64_t v = in.le<std::uint64_t>();
  if (v == kNone) return std::nullopt;
  return std::chrono::seconds(static_cast<std::int64_t>(v));
}

// The response time within kMaxSeconds of the epoch; every duration within 0..kMaxSeconds
// (none of them is negative when computed: freshness.cc).
bool plausible(const CachedMeta& m) {
  const auto& f = m.freshness;
  const auto& d = m.directives;
  if (!in_range(f.response_time.time_since_epoch(), -kMaxSeconds) ||
      !in_range(f.corrected_initial_age, 0) || !in_range(f.freshness_lifetime, 0)) {
    return false;
  }
  for (const auto& s : {d.max_age, d.s_maxage, d.stale_while_revalidate, d.stale_if_error}) {
    if (s && !in_range(*s, 0)) return false;
  }
  return true;
}

std::uint16_t flags_of(const CachedMeta& m) {
  const auto& d = m.directives;
  std::uint16_t f = 0;
  f |= d.no_cache ? kNoCache : 0;
  f |= d.no_store ? kNoStore : 0;
  f |= d.is_private ? kPrivate : 0;
  f |= d.is_public ? kPublic : 0;
  f |= d.must_revalidate ? kMustRevalidate : 0;
  f |= d.proxy_revalidate ? kProxyRevalidate : 0;
  f |= d.no_transform ? kNoTransform : 0;
  f |= d.must_understand ? kMustUnderstand : 0;
  f |= d.immutable ? kImmutable : 0;
  f |= m.freshness.has_validator ? kHasValidator : 0;
  return f;
}

void set_flags(CachedMeta& m, std::uint16_t f) {
  auto& d = m.directives;
  d.no_cache = f & kNoCache;
  d.no_store = f & kNoStore;
  d.is_private = f & kPrivate;
  d.is_public = f & kPublic;
  d.must_revalidate = f & kMustRevalidate;
  d.proxy_revalidate = f & kProxyRevalidate;
  d.no_transform = f & kNoTransform;
  d.must_understand = f & kMustUnderstand;
  d.immutable = f & kImmutable;
  m.freshness.has_validator = f & kHasValidator;
}

}  // namespace

std::string encode_meta(const CachedMeta& meta) {
  std::vector<std::uint8_t> out;
  put_le(out, kMetaVersion);
  put_le(out, static_cast<std::uint16_t>(meta.status));
  put_le(out, flags_of(meta));
  put_le(out, static_cast<std::uint64_t>(meta.freshness.response_time.time_since_epoch().count()));
  put_le(out, static_cast<std::uint64_t>(meta.freshness.corrected_initial_age.count()));
  put_le(out, static_cast<std::uint64_t>(meta.freshness.freshness_lifetime.count()));
  const auto& d = meta.directives;
  for (const auto& s : {d.max_age, d.s_maxage, d.stale_while_revalidate, d.stale_if_error}) {
    put_seconds(out, s);
  }
  put_le(out, static_cast<std::uint32_t>(meta.vary.size()));
  out.insert(out.end(), meta.vary.begin(), meta.vary.end());
  return {out.begin(), out.end()};
}

std::optional<CachedMeta> decode_meta(std::string_view bytes) {
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  ByteReader in({data, bytes.size()});
  constexpr std::size_t kFixed = 1 + 2 + 2 + 8 * 3 + 8 * 4 + 4;
  if (bytes.size() < kFixed || in.le<std::uint8_t>() != kMetaVersion) return std::nullopt;
  CachedMeta meta;
  meta.status = in.le<std::uint16_t>();
  set_flags(meta, in.le<std::uint16_t>());
  meta.freshness.response_time = std::chrono::sys_seconds(
      std::chrono::seconds(static_cast<std::int64_t>(in.le<std::uint64_t>())));
  meta.freshness.corrected_initial_age =
      std::chrono::seconds(static_cast<std::int64_t>(in.le<std::uint64_t>()));
  meta.freshness.freshness_lifetime =
      std::chrono::seconds(static_cast<std::int64_t>(in.le<std::uint64_t>()));
  auto& d = meta.directives;
  d.max_age = get_seconds(in);
  d.s_maxage = get_seconds(in);
  d.stale_while_revalidate = get_seconds(in);
  d.stale_if_error = get_seconds(in);
  const std::uint32_t vary_size = in.le<std::uint32_t>();
  if (vary_size > kMaxVaryBytes || bytes.size() != kFixed + vary_size) return std::nullopt;
  if (!plausible(meta)) return std::nullopt;
  meta.vary.assign(bytes.substr(kFixed));
  return meta;
}

}  // namespace sumcache::daemon
