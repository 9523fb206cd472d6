#include "config/size_string.h"

#include <gtest/gtest.h>

#include "config/load_config.h"

namespace sumcache::config {
namespace {

TEST(SizeString, ParsesEveryBinaryUnit) {
  EXPECT_EQ(parse_size("0B"), 0U);
  EXPECT_EQ(parse_size("512B"), 512U);
  EXPECT_EQ(parse_size("512KiB"), 512U * 1024);
  EXPECT_EQ(parse_size("256MiB"), 256U * 1024 * 1024);
  EXPECT_EQ(parse_size("1GiB"), 1ULL << 30);
  EXPECT_EQ(parse_size("3TiB"), 3ULL << 40);
}

TEST(SizeString, AllowsOneSpaceBeforeTheUnit) {
  EXPECT_EQ(parse_size("64 KiB"), 64U * 1024);
  EXPECT_FALSE(parse_size("64  KiB"));
  EXPECT_FALSE(parse_size(" 64KiB"));
  EXPECT_FALSE(parse_size("64KiB "));
}

TEST(SizeString, RefusesDecimalUnitsAsAmbiguous) {
  std::string why;
  EXPECT_FALSE(parse_size("10MB", &why));
  EXPECT_NE(why.find("ambiguous"), std::string::npos) << why;
  EXPECT_FALSE(parse_size("1KB"));
  EXPECT_FALSE(parse_size("1kib"));  // units are case sensitive
}

TEST(SizeString, RefusesWhatIsNotAWholeCountOfUnits) {
  for (const char* bad : {"", "MiB", "1", "1.5GiB", "-1MiB", "+1MiB", "0x10B", "1 GiB x"}) {
    std::string why;
    EXPECT_FALSE(parse_size(bad, &why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

TEST(SizeString, RefusesOverflow) {
  EXPECT_EQ(parse_size("16777215TiB"), 16777215ULL << 40);
  EXPECT_FALSE(parse_size("16777216TiB"));
  EXPECT_FALSE(parse_size("99999999999999999999B"));
}

TEST(SizeString, FormatsWithTheLargestExactUnit) {
  EXPECT_EQ(format_size(0), "0B");
  EXPECT_EQ(format_size(1000), "1000B");
  EXPECT_EQ(format_size(1536), "1536B");
  EXPECT_EQ(format_size(3072), "3KiB");
  EXPECT_EQ(format_size(64 * kKiB), "64KiB");
  EXPECT_EQ(format_size(256 * kMiB), "256MiB");
  EXPECT_EQ(format_size(kTiB), "1TiB");
}

TEST(SizeString, FormatThenParseIsIdentity) {
  for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{4095}, kKiB, 3 * kGiB, 7 * kTiB}) {
    EXPECT_EQ(parse_size(format_size(bytes)), bytes);
  }
}

TEST(SizeString, SizeFieldsTakeIntegersOrStrings) {
  Config a = parse_config(R"({"cache": {"max_object_bytes": 1048576}})", "t");
  Config b = parse_config(R"({"cache": {"max_object_bytes": "1MiB"}})", "t");
  EXPECT_EQ(a.cache.max_object_bytes, kMiB);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace sumcache::config
