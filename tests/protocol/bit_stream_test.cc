#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "protocol/bit_reader.h"
#include "protocol/bit_writer.h"
#include "protocol/rice_code.h"

namespace sumcache::protocol {
namespace {

TEST(BitStream, FirstBitWrittenIsBitZeroOfFirstByte) {
  std::string out;
  BitWriter w(out);
  w.put(1, 1);
  w.put(0, 2);
  w.put(0b11, 2);
  w.put(0x1FF, 9);
  w.finish();
  ASSERT_EQ(out.size(), 2U);
  EXPECT_EQ(static_cast<std::uint8_t>(out[0]), 0b1111'1001);
  EXPECT_EQ(static_cast<std::uint8_t>(out[1]), 0b0011'1111);
}

TEST(BitStream, FieldsOfEveryWidthReadBackAsWritten) {
  std::mt19937_64 rng(7);
  std::vector<std::pair<std::uint64_t, unsigned>> fields;
  std::string out;
  BitWriter w(out);
  for (int i = 0; i < 5000; ++i) {
    const unsigned width = static_cast<unsigned>(rng() % 65);
    const std::uint64_t value = width == 64 ? rng() : rng() & ((std::uint64_t{1} << width) - 1);
    fields.emplace_back(value, width);
    w.put(value, width);
  }
  w.finish();
  BitReader r(out);
  for (const auto& [value, width] : fields) {
    std::uint64_t got = 0;
    ASSERT_TRUE(r.get(width, got));
    ASSERT_EQ(got, value) << width;
  }
  EXPECT_TRUE(r.only_padding_left());
}

TEST(BitStream, ReadPastTheEndFails) {
  const std::string one_byte(1, '\x0F');
  BitReader r(one_byte);
  std::uint64_t v = 0;
  EXPECT_FALSE(r.get(9, v));
  EXPECT_TRUE(r.get(8, v));
  EXPECT_EQ(v, 0x0FU);
  EXPECT_FALSE(r.get(1, v));
}

TEST(BitStream, UnaryRunIsBoundedByItsLimitAndTheInput) {
  std::string out;
  BitWriter w(out);
  w.put_zeros(1000);
  w.put(1, 1);
  w.finish();
  std::uint64_t zeros = 0;
  BitReader ok(out);
  ASSERT_TRUE(ok.get_unary(1000, zeros));
  EXPECT_EQ(zeros, 1000U);
  BitReader limited(out);
  EXPECT_FALSE(limited.get_unary(999, zeros));
  const std::string all_zero(16, '\0');
  BitReader endless(all_zero);
  EXPECT_FALSE(endless.get_unary(1'000'000, zeros));
}

TEST(BitStream, NonZeroPaddingIsNotPadding) {
  const std::string byte(1, '\x02');
  BitReader r(byte);
  std::uint64_t v = 0;
  ASSERT_TRUE(r.get(1, v));
  EXPECT_FALSE(r.only_padding_left());
}

TEST(RiceCode, GapsRoundTripForEveryParameter) {
  std::mt19937_64 rng(11);
  for (unsigned r : {0U, 1U, 5U, 17U, 40U, 63U}) {
    std::vector<std::uint64_t> gaps;
    std::string out;
    BitWriter w(out);
    for (int i = 0; i < 300; ++i) {
      const std::uint64_t gap = (rng() >> (rng() % 64)) % (std::uint64_t{1} << 20 | (1ULL << r));
      gaps.push_back(gap);
      put_rice(w, gap, r);
    }
    w.finish();
    BitReader in(out);
    for (std::uint64_t gap : gaps) {
      std::uint64_t got = 0;
      ASSERT_TRUE(get_rice(in, r, ~std::uint64_t{0}, got));
      ASSERT_EQ(got, gap) << "r=" << r;
    }
    EXPECT_TRUE(in.only_padding_left());
  }
}

TEST(RiceCode, GapAboveTheLimitIsRefused) {
  std::string out;
  BitWriter w(out);
  put_rice(w, 100, 3);
  w.finish();
  std::uint64_t gap = 0;
  BitReader exact(out);
  EXPECT_TRUE(get_rice(exact, 3, 100, gap));
  BitReader below(out);
  EXPECT_FALSE(get_rice(below, 3, 99, gap));
}

TEST(RiceCode, ParameterFollowsTheMeanGap) {
  EXPECT_EQ(rice_parameter_for_mean(0), 0U);
  EXPECT_EQ(rice_parameter_for_mean(2), 0U);
  EXPECT_EQ(rice_parameter_for_mean(416), 8U);  // 416 ln 2 = 288
  EXPECT_EQ(rice_parameter_for_mean(1e30), 63U);
}

TEST(RiceCode, SizerPicksTheCheapestOfItsCandidates) {
  std::mt19937_64 rng(3);
  std::geometric_distribution<std::uint64_t> geometric(1.0 / 300);
  std::vector<std::uint64_t> gaps(20000);
  for (auto& g : gaps) g = geometric(rng);
  RiceSizer sizer(300);
  for (auto g : gaps) sizer.add(g);
  const unsigned best = sizer.best_parameter();
  for (unsigned r = 0; r < 20; ++r) {
    std::uint64_t bits = 0;
    for (auto g : gaps) bits += (g >> r) + r + 1;
    EXPECT_LE(sizer.best_bits(), bits) << "r=" << r << " best=" << best;
  }
}

}  // namespace
}  // namespace sumcache::protocol
