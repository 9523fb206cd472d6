// FingerprintDirectory: exact claims for fingerprint summaries of many peers,
// every refusal leaving the directory as it was, the layout's memory, the
// false positive rate through it, and a model test against one
// std::multiset per slot.
#include "filters/fingerprint_directory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <vector>

#include "filters/filter_error.h"
#include "tests/filters/fpr_keys.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

using Fps = std::vector<std::uint64_t>;

// A hash whose fingerprint in `universe` is f: h1 = ceil(f 2^64 / U) maps to f.
Hash128 hash_of(std::uint64_t f, std::uint64_t universe) {
  __extension__ using U128 = unsigned __int128;
  const U128 h1 = ((static_cast<U128>(f) << 64) + universe - 1) / universe;
  const Hash128 h{static_cast<std::uint64_t>(h1), 0};
  EXPECT_EQ(fingerprint(h, universe), f);
  return h;
}

std::uint64_t bit(unsigned slot) { return std::uint64_t{1} << slot; }

TEST(FingerprintDirectory, EmptyClaimsNothing) {
  const FingerprintDirectory dir;
  EXPECT_EQ(dir.claims("http://a/"), 0U);
  EXPECT_FALSE(dir.has(0));
  EXPECT_EQ(dir.universe_of(0), 0U);
  EXPECT_EQ(dir.size_of(0), 0U);
  EXPECT_TRUE(dir.sorted_of(0).empty());
  EXPECT_FALSE(dir.has(64));
  EXPECT_EQ(dir.universe_of(64), 0U);
}

TEST(FingerprintDirectory, ClaimsExactlyThePeersHoldingTheFingerprint) {
  FingerprintDirectory dir;
  const std::uint64_t u = 1'000'000;
  ASSERT_FALSE(dir.set(0, u, Fps{1, 5, 5, 999'999}));
  ASSERT_FALSE(dir.set(3, u, Fps{5, 70'000}));
  ASSERT_FALSE(dir.set(63, 2000, Fps{5}));  // another universe
  EXPECT_EQ(dir.claims(hash_of(5, u)) & (bit(0) | bit(3)), bit(0) | bit(3));
  EXPECT_EQ(dir.claims(hash_of(1, u)) & (bit(0) | bit(3)), bit(0));
  EXPECT_EQ(dir.claims(hash_of(999'999, u)) & (bit(0) | bit(3)), bit(0));
  EXPECT_EQ(dir.claims(hash_of(70'000, u)) & (bit(0) | bit(3)), bit(3));
  EXPECT_EQ(dir.claims(hash_of(2, u)) & (bit(0) | bit(3)), 0U);
  EXPECT_EQ(dir.claims(hash_of(5, 2000)) & bit(63), bit(63));
  EXPECT_EQ(dir.claims(hash_of(5, u), bit(3)), bit(3));  // eligible masks
  EXPECT_EQ(dir.claims(hash_of(5, u), 0), 0U);
  EXPECT_EQ(dir.size_of(0), 4U);
  EXPECT_EQ(dir.universe_of(63), 2000U);
  EXPECT_EQ(dir.sorted_of(0), (Fps{1, 5, 5, 999'999}));
  EXPECT_EQ(dir.sorted_of(3), (Fps{5, 70'000}));
}

TEST(FingerprintDirectory, ClaimsByKeyHashWithTheDirectorysHasher) {
  FingerprintDirectory dir;
  const std::uint64_t u = 1 << 30;
  const std::string key = testing::url_key(7);
  ASSERT_FALSE(dir.set(2, u, Fps{fingerprint(Hasher{}(key), u)}));
  EXPECT_EQ(dir.claims(key), bit(2));
  EXPECT_EQ(dir.claims(testing::url_key(8)), 0U);
}

TEST(FingerprintDirectory, SetRefusesBadSummariesAndKeepsWhatItHeld) {
  FingerprintDirectory dir({}, 4);
  ASSERT_FALSE(dir.set(1, 100, Fps{3}));
  EXPECT_EQ(dir.set(64, 100, Fps{}), FilterErrc::invalid_slot);
  EXPECT_EQ(dir.set(1, 0, Fps{}), FilterErrc::invalid_bits);
  EXPECT_EQ(dir.set(1, kMaxUniverse + 1, Fps{}), FilterErrc::invalid_bits);
  EXPECT_EQ(dir.set(1, 100, Fps{1, 2, 3, 4, 5}), FilterErrc::too_large);
  EXPECT_EQ(dir.set(1, (std::uint64_t{4} << 16) + 65536, Fps{}), FilterErrc::too_large);
  EXPECT_EQ(dir.set(1, 100, Fps{2, 1}), FilterErrc::not_ascending);
  EXPECT_EQ(dir.set(1, 100, Fps{1, 100}), FilterErrc::position_out_of_range);
  EXPECT_EQ(dir.sorted_of(1), (Fps{3}));
  EXPECT_EQ(dir.universe_of(1), 100U);
  EXPECT_EQ(dir.claims(hash_of(3, 100)), bit(1));
  EXPECT_FALSE(dir.set(1, 100, Fps{1, 2, 3, 4}));  // max_entries itself is allowed
}

TEST(FingerprintDirectory, ApplyRemovesRanksThenAdds) {
  FingerprintDirectory dir;
  const std::uint64_t u = 1 << 20;
  ASSERT_FALSE(dir.set(4, u, Fps{10, 20, 20, 30, 40}));
  ASSERT_FALSE(dir.set(5, u, Fps{20}));
  ASSERT_FALSE(dir.apply(4, Fps{1, 2, 4}, Fps{5, 35, 35}));
  EXPECT_EQ(dir.sorted_of(4), (Fps{5, 10, 30, 35, 35}));
  EXPECT_EQ(dir.sorted_of(5), (Fps{20}));
  EXPECT_EQ(dir.claims(hash_of(20, u)), bit(5));
  EXPECT_EQ(dir.claims(hash_of(35, u)), bit(4));
  EXPECT_EQ(dir.size_of(4), 5U);
  ASSERT_FALSE(dir.apply(4, Fps{}, Fps{}));
  EXPECT_EQ(dir.size_of(4), 5U);
}

TEST(FingerprintDirectory, ApplyRefusesBadDeltasAndKeepsWhatItHeld) {
  FingerprintDirectory dir({}, 5);
  const std::uint64_t u = 1000;
  ASSERT_FALSE(dir.set(0, u, Fps{1, 2, 3}));
  EXPECT_EQ(dir.apply(64, Fps{}, Fps{}), FilterErrc::invalid_slot);
  EXPECT_EQ(dir.apply(1, Fps{}, Fps{}), FilterErrc::no_summary);
  EXPECT_EQ(dir.apply(0, Fps{3}, Fps{}), FilterErrc::rank_out_of_range);
  EXPECT_EQ(dir.apply(0, Fps{1, 1}, Fps{}), FilterErrc::not_ascending);
  EXPECT_EQ(dir.apply(0, Fps{2, 1}, Fps{}), FilterErrc::not_ascending);
  EXPECT_EQ(dir.apply(0, Fps{5, 1}, Fps{}), FilterErrc::not_ascending);
  EXPECT_EQ(dir.apply(0, Fps{}, Fps{9, 8}), FilterErrc::not_ascending);
  EXPECT_EQ(dir.apply(0, Fps{0}, Fps{1000}), FilterErrc::position_out_of_range);
  EXPECT_EQ(dir.apply(0, Fps{}, Fps{4, 5, 6}), FilterErrc::too_large);
  EXPECT_EQ(dir.sorted_of(0), (Fps{1, 2, 3}));
  EXPECT_FALSE(dir.apply(0, Fps{0}, Fps{4, 5, 6}));  // back to 5 = max_entries
  EXPECT_EQ(dir.sorted_of(0), (Fps{2, 3, 4, 5, 6}));
}

TEST(FingerprintDirectory, ClearForgetsTheSlotOnly) {
  FingerprintDirectory dir;
  ASSERT_FALSE(dir.set(0, 100, Fps{7}));
  ASSERT_FALSE(dir.set(1, 100, Fps{7}));
  dir.clear(0);
  dir.clear(0);   // no effect on an empty slot
  dir.clear(64);  // nor on an invalid one
  EXPECT_FALSE(dir.has(0));
  EXPECT_TRUE(dir.has(1));
  EXPECT_EQ(dir.claims(hash_of(7, 100)), bit(1));
  EXPECT_EQ(dir.apply(0, Fps{}, Fps{1}), FilterErrc::no_summary);
  dir.clear(1);
  EXPECT_EQ(dir.claims(hash_of(7, 100)), 0U);
  EXPECT_EQ(dir.memory_bytes(), FingerprintDirectory().memory_bytes());
}

TEST(FingerprintDirectory, ASlotMovesToANewUniverse) {
  FingerprintDirectory dir;
  ASSERT_FALSE(dir.set(0, 100, Fps{7}));
  ASSERT_FALSE(dir.set(1, 100, Fps{8}));
  ASSERT_FALSE(dir.set(0, 5000, Fps{4999}));
  EXPECT_EQ(dir.universe_of(0), 5000U);
  EXPECT_EQ(dir.claims(hash_of(7, 100)) & bit(0), 0U);
  EXPECT_EQ(dir.claims(hash_of(8, 100)) & bit(1), bit(1));
  EXPECT_EQ(dir.claims(hash_of(4999, 5000)) & bit(0), bit(0));
  EXPECT_EQ(dir.sorted_of(1), (Fps{8}));
}

TEST(FingerprintDirectory, UniverseOneAndTheLargestUniverse) {
  FingerprintDirectory dir;
  ASSERT_FALSE(dir.set(0, 1, Fps{0, 0}));
  EXPECT_EQ(dir.claims("anything"), bit(0));
  ASSERT_FALSE(dir.apply(0, Fps{1}, Fps{}));
  EXPECT_EQ(dir.sorted_of(0), (Fps{0}));
  ASSERT_FALSE(dir.set(1, kMaxUniverse, Fps{0, kMaxUniverse - 1}));
  EXPECT_EQ(dir.claims(hash_of(kMaxUniverse - 1, kMaxUniverse)), bit(0) | bit(1));
  EXPECT_EQ(dir.claims(hash_of(kMaxUniverse - 2, kMaxUniverse)), bit(0));
  EXPECT_EQ(dir.sorted_of(1), (Fps{0, kMaxUniverse - 1}));
}

// One universe, peers joining until 64 share it (the peer bits growing at 2,
// 3, 5, 9, 17 and 33 peers) and leaving again (shrinking): every peer's set
// stays exact.
TEST(FingerprintDirectory, PeersJoiningAndLeavingKeepEverySetExact) {
  FingerprintDirectory dir;
  const std::uint64_t u = 1 << 22;
  const auto set_of = [&](unsigned s) {
    Fps fps;
    for (std::uint64_t i = 0; i < 50; ++i) fps.push_back((s * 7919 + i * 83'891) % u);
    std::sort(fps.begin(), fps.end());
    return fps;
  };
  const auto check = [&](std::uint64_t held) {
    for (unsigned s = 0; s < 64; ++s) {
      ASSERT_EQ(dir.sorted_of(s), (held & bit(s)) != 0 ? set_of(s) : Fps{}) << s;
      for (const std::uint64_t f : set_of(s)) {
        ASSERT_EQ(dir.claims(hash_of(f, u), bit(s)), held & bit(s)) << s;
      }
    }
  };
  std::uint64_t held = 0;
  for (unsigned s = 0; s < 64; ++s) {
    ASSERT_FALSE(dir.set(s, u, set_of(s)));
    held |= bit(s);
    if (std::has_single_bit(s) || s == 63) check(held);
  }
  for (unsigned s = 0; s < 63; ++s) {
    dir.clear(s);
    held &= ~bit(s);
    if (std::has_single_bit(64 - s - 1)) check(held);
  }
  ASSERT_FALSE(dir.set(5, u, set_of(5)));  // joins the one left
  check(held | bit(5));
}

// Bytes per URL per peer at p = 0.24% (U = n / p); the bench measures 10^6
// per peer, this the same layout at a size the sanitizer build runs quickly.
TEST(FingerprintDirectory, AtMostTwoAndAHalfBytesPerUrlPerPeer) {
  for (const auto& [peers, n] :
       {std::pair<unsigned, std::uint64_t>{1, 200'000}, {16, 50'000}, {64, 20'000}}) {
    FingerprintDirectory dir;
    const std::uint64_t u = fingerprint_universe(n, 0.0024).value();
    for (unsigned s = 0; s < peers; ++s) {
      Fps fps;
      for (std::uint64_t i = 0; i < n; ++i) {
        fps.push_back(fingerprint(Hasher{}(testing::url_key(s * n + i)), u));
      }
      std::sort(fps.begin(), fps.end());
      ASSERT_FALSE(dir.set(s, u, fps));
    }
    const double per = static_cast<double>(dir.memory_bytes()) / static_cast<double>(peers * n);
    std::printf("FingerprintDirectory, %u peers of %llu: %.3f bytes per URL per peer\n", peers,
                static_cast<unsigned long long>(n), per);
    EXPECT_LE(per, 2.5) << peers;
    EXPECT_GE(per, 2.0) << peers;
  }
}

// The rate measured through the directory is fingerprint_fpr's, for peers
// sharing a universe and for one alone.
TEST(FingerprintDirectory, MeasuredFalsePositiveRateMatchesTheFormula) {
  const std::vector<Hash128>& hashes = fpr_key_hashes();
  constexpr unsigned kPeers = 4;
  constexpr std::uint64_t kPerPeer = kFprInserted / kPeers;
  for (const double p : {0.0024, 0.01}) {
    FingerprintDirectory dir;
    const std::uint64_t u = fingerprint_universe(kPerPeer, p).value();
    for (unsigned s = 0; s < kPeers; ++s) {
      Fps fps;
      for (std::uint64_t i = s * kPerPeer; i < (s + 1) * kPerPeer; ++i) {
        fps.push_back(fingerprint(hashes[i], u));
      }
      std::sort(fps.begin(), fps.end());
      ASSERT_FALSE(dir.set(s, u, fps));
    }
    std::vector<std::uint64_t> false_positives(kPeers, 0);
    for (std::uint64_t i = kFprInserted; i < kFprInserted + kFprProbed; ++i) {
      const std::uint64_t claimed = dir.claims(hashes[i]);
      for (unsigned s = 0; s < kPeers; ++s) false_positives[s] += claimed >> s & 1U;
    }
    for (std::uint64_t i = 0; i < kFprInserted; ++i) {
      ASSERT_EQ(dir.claims(hashes[i]) & bit(static_cast<unsigned>(i / kPerPeer)),
                bit(static_cast<unsigned>(i / kPerPeer)));
    }
    const double expected = fingerprint_fpr(kPerPeer, u);
    for (unsigned s = 0; s < kPeers; ++s) {
      const double measured = static_cast<double>(false_positives[s]) / kFprProbed;
      EXPECT_NEAR(measured / expected, 1.0, 0.10) << "p " << p << " slot " << s;
      EXPECT_LE(measured, p * 1.10);
    }
  }
}

// The model: one std::multiset of fingerprints per slot. Slots take random
// full sets and deltas in three universes (two slots share each universe
// often, others move), joining and leaving so that the peer bits change.
TEST(FingerprintDirectoryModel, ClaimsMatchPerSlotMultisets) {
  constexpr unsigned kSlots = 12;
  constexpr int kRounds = 600;
  const std::uint64_t universes[] = {1 << 16, 3'000'017, 1 << 24};
  FingerprintDirectory dir({}, 3000);
  std::vector<std::multiset<std::uint64_t>> model(kSlots);
  std::vector<std::uint64_t> universe_of(kSlots, 0);
  std::mt19937_64 rng(16);
  std::map<std::uint64_t, std::vector<std::uint64_t>> pool;  // a universe's recurring fingerprints
  for (const std::uint64_t u : universes) {
    for (int i = 0; i < 2000; ++i) pool[u].push_back(rng() % u);
  }
  const auto draw = [&](std::uint64_t u) {
    return rng() % 4 == 0 ? rng() % u : pool[u][rng() % pool[u].size()];
  };
  std::uint64_t deltas = 0;
  for (int round = 0; round < kRounds; ++round) {
    const auto s = static_cast<unsigned>(rng() % kSlots);
    const int action = static_cast<int>(rng() % 10);
    if (action == 0) {
      dir.clear(s);
      model[s].clear();
      universe_of[s] = 0;
    } else if (action <= 3 || universe_of[s] == 0) {
      const std::uint64_t u = universes[rng() % 3];
      Fps fps(rng() % 1500);
      for (auto& f : fps) f = draw(u);
      std::sort(fps.begin(), fps.end());
      ASSERT_FALSE(dir.set(s, u, fps));
      model[s] = {fps.begin(), fps.end()};
      universe_of[s] = u;
    } else {
      const std::uint64_t u = universe_of[s];
      const Fps held(model[s].begin(), model[s].end());
      Fps removed;
      for (std::uint64_t r = 0; r < held.size(); ++r) {
        if (rng() % 10 == 0) removed.push_back(r);
      }
      Fps added(rng() % 200);
      for (auto& f : added) f = draw(u);
      std::sort(added.begin(), added.end());
      ASSERT_FALSE(dir.apply(s, removed, added));
      std::multiset<std::uint64_t> next(added.begin(), added.end());
      for (std::uint64_t r = 0, k = 0; r < held.size(); ++r) {
        if (k < removed.size() && removed[k] == r) {
          ++k;
        } else {
          next.insert(held[r]);
        }
      }
      model[s] = std::move(next);
      ++deltas;
    }
    // Every slot's view, then claims for present and absent fingerprints.
    for (unsigned t = 0; t < kSlots; ++t) {
      ASSERT_EQ(dir.universe_of(t), universe_of[t]);
      ASSERT_EQ(dir.size_of(t), model[t].size());
      if (round % 50 == 0) {
        ASSERT_EQ(dir.sorted_of(t), Fps(model[t].begin(), model[t].end()));
      }
    }
    for (int q = 0; q < 100; ++q) {
      const std::uint64_t u = universes[rng() % 3];
      const Hash128 h = q % 2 == 0 ? hash_of(draw(u), u) : Hash128{rng(), rng()};
      std::uint64_t expected = 0;
      for (unsigned t = 0; t < kSlots; ++t) {
        if (universe_of[t] != 0 && model[t].count(fingerprint(h, universe_of[t])) > 0) {
          expected |= bit(t);
        }
      }
      const std::uint64_t eligible = q % 3 == 0 ? rng() : ~std::uint64_t{0};
      ASSERT_EQ(dir.claims(h, eligible), expected & eligible) << "round " << round;
    }
  }
  EXPECT_GT(deltas, 200U);
}

}  // namespace
}  // namespace sumcache::filters
