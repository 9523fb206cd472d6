// The on-disk cache meta against checked-in files (golden/, written by
// golden/make_meta_v1.py from the layout, not by the encoder): each decodes to
// known fields and those fields encode to the same bytes, so any change of the
// format fails here and must come with a new version byte and new files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "daemon/cache/cached_meta.h"

namespace sumcache::daemon {
namespace {

using std::chrono::seconds;

std::string golden(const std::string& name) {
  const auto path = std::filesystem::path(SUMCACHE_META_GOLDEN_DIR) / name;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot read " << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

CachedMeta fresh_validator() {
  CachedMeta m;
  m.status = 200;
  m.freshness = {std::chrono::sys_seconds(seconds(1'700'000'000)), seconds(5), seconds(3600), true};
  m.directives.is_public = true;
  m.directives.max_age = seconds(3600);
  return m;
}

CachedMeta vary_rfc5861() {
  CachedMeta m;
  m.status = 203;
  m.freshness = {std::chrono::sys_seconds(seconds(1'234'567'890)), seconds(0), seconds(86'400),
                 false};
  m.directives.must_revalidate = true;
  m.directives.immutable = true;
  m.directives.s_maxage = seconds(600);
  m.directives.stale_while_revalidate = seconds(30);
  m.directives.stale_if_error = seconds(300);
  m.vary = "Accept-Encoding, Accept-Language";
  return m;
}

// Every flag set, a response time before the epoch, durations at 0 and at the
// largest the decoder accepts (2^40 s).
CachedMeta every_flag_edges() {
  constexpr std::int64_t kMax = std::int64_t{1} << 40;
  CachedMeta m;
  m.status = 404;
  m.freshness = {std::chrono::sys_seconds(seconds(-86'400)), seconds(kMax), seconds(0), true};
  auto& d = m.directives;
  d.no_cache = d.no_store = d.is_private = d.is_public = d.must_revalidate = true;
  d.proxy_revalidate = d.no_transform = d.must_understand = d.immutable = true;
  d.max_age = d.s_maxage = d.stale_while_revalidate = seconds(0);
  d.stale_if_error = seconds(kMax);
  m.vary = "X";
  return m;
}

struct Golden {
  const char* file;
  CachedMeta (*fields)();
};

void PrintTo(const Golden& param, std::ostream* os) { *os << param.file; }

class MetaGolden : public ::testing::TestWithParam<Golden> {};

TEST_P(MetaGolden, DecodesToItsFields) {
  const auto decoded = decode_meta(golden(GetParam().file));
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(*decoded, GetParam().fields());
}

TEST_P(MetaGolden, ItsFieldsEncodeToTheSameBytes) {
  const std::string bytes = golden(GetParam().file);
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(encode_meta(GetParam().fields()), bytes)
      << "the meta encoding changed: bump kMetaVersion and add golden files for it";
}

INSTANTIATE_TEST_SUITE_P(Version1, MetaGolden,
                         ::testing::Values(Golden{"v1_fresh_validator.meta", fresh_validator},
                                           Golden{"v1_vary_rfc5861.meta", vary_rfc5861},
                                           Golden{"v1_every_flag_edges.meta", every_flag_edges}),
                         [](const auto& param_info) {
                           std::string name = param_info.param.file;
                           name = name.substr(0, name.find('.'));
                           std::erase(name, '_');
                           return name;
                         });

// A damaged or unknown record is a miss, never a response with wrong facts.
class BadMetaGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(BadMetaGolden, IsRefused) {
  const std::string bytes = golden(GetParam());
  ASSERT_FALSE(bytes.empty());
  EXPECT_EQ(decode_meta(bytes), std::nullopt);
}

INSTANTIATE_TEST_SUITE_P(
    Version1, BadMetaGolden,
    ::testing::Values("bad_v1_truncated_vary.meta", "bad_v1_truncated_fixed.meta",
                      "bad_v1_trailing_byte.meta", "bad_v2_unknown_version.meta",
                      "bad_v1_time_past_range.meta", "bad_v1_lifetime_negative.meta"),
    [](const auto& param_info) {
      std::string name = param_info.param;
      name = name.substr(4, name.find('.') - 4);
      std::erase(name, '_');
      return name;
    });

}  // namespace
}  // namespace sumcache::daemon
