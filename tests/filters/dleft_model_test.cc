// Randomized model test: a DleftCountingFilter against a std::multiset of key
// ids, over 3,000,000 mixed operations (adds, removes of held keys, removes of
// absent keys) with fixed seeds, in configurations that reach the seed's load,
// overflowing buckets, saturated counters and shared fingerprints.
//
// Keys with one true fingerprint share one cell (docs/filters_dleft.md), so the
// model also groups its keys by fingerprint: held(f) keys of the multiset, and
// whether f's cell has saturated (it stays, even once held(f) is 0).
// What it pins:
// - after every op: an add of a fingerprint the filter lacks goes to the
//   leftmost least loaded candidate bucket, or is refused with bucket_overflow
//   exactly when all d are full, changing nothing; a remove is refused exactly
//   when the filter lacks the key's fingerprint (for an absent key that shares
//   one with a held key it is accepted and taken from that cell; the test adds
//   the key back at once, which restores it);
// - at checkpoints a random number of operations apart: every held key is
//   contained; each fingerprint's count is held(f), or the maximum once
//   saturated; size(), occupied_cells(), saturated_counters(), refused_adds(),
//   refused_removes() and the sum of the bucket loads are what the model says.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <vector>

#include "filters/dleft_counting_filter.h"
#include "filters/filter_error.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

struct ModelConfig {
  const char* name;
  DleftParams params;
  std::uint64_t universe;  // distinct key ids
  std::size_t max_held;    // the held population swings between 0 and this
  std::uint64_t ops;
  std::uint64_t seed;
  // Cases the run must meet, or it would not be testing them.
  bool overflows;
  bool saturates;
  bool shares_fingerprints;  // distinct held keys with one fingerprint
};

// NOLINTNEXTLINE(readability-identifier-naming): GoogleTest finds it by this name.
void PrintTo(const ModelConfig& config, std::ostream* os) { *os << config.name; }

constexpr std::uint64_t kShortCheckpointGap = 300;
constexpr std::uint64_t kLongCheckpointGap = 40'000;

class DleftModel : public ::testing::TestWithParam<ModelConfig> {
 protected:
  void SetUp() override {
    const ModelConfig& config = GetParam();
    filter_ = std::move(DleftCountingFilter::create(config.params)).value();
    rng_.seed(config.seed);
    for (std::uint64_t id = 0; id < config.universe; ++id) {
      hashes_.push_back(Hasher{}(sumcache::testing::url_key(id)));
      fingerprints_.push_back(filter_->fingerprint(hashes_.back()));
    }
  }

  std::uint64_t pick(std::uint64_t n) {
    return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_);
  }

  // Whether the filter should hold a cell for fingerprint f.
  bool has_cell(std::uint64_t f) const { return held_by_fp_.contains(f) || sticky_.contains(f); }

  void add(std::uint64_t id) {
    const Hash128& h = hashes_[id];
    const std::uint64_t f = fingerprints_[id];
    const std::uint32_t d = filter_->params().subtables;
    std::vector<std::uint32_t> before(d);
    for (std::uint32_t s = 0; s < d; ++s)
      before[s] = filter_->bucket_load(s, filter_->bucket_of(h, s));
    const std::error_code ec = filter_->add(h);
    if (!has_cell(f)) {
      std::uint32_t least = 0;
      for (std::uint32_t s = 1; s < d; ++s) least = before[s] < before[least] ? s : least;
      if (before[least] == filter_->params().cells_per_bucket) {
        ASSERT_EQ(ec, FilterErrc::bucket_overflow) << "key " << id;
        ++refused_adds_;
        for (std::uint32_t s = 0; s < d; ++s) {
          ASSERT_EQ(filter_->bucket_load(s, filter_->bucket_of(h, s)), before[s]);
        }
        ASSERT_FALSE(filter_->contains(h));
        return;
      }
      ASSERT_FALSE(ec) << "key " << id;
      for (std::uint32_t s = 0; s < d; ++s) {
        ASSERT_EQ(filter_->bucket_load(s, filter_->bucket_of(h, s)),
                  before[s] + (s == least ? 1U : 0U))
            << "key " << id << " subtable " << s;
      }
    } else {
      ASSERT_FALSE(ec) << "key " << id;
    }
    // Another id already holds this fingerprint: two keys share one cell.
    const auto held = held_by_fp_.find(f);
    if (held != held_by_fp_.end() && held->second > model_.count(id)) shared_ = true;
    model_.insert(id);
    held_.push_back(id);
    if (++held_by_fp_[f] >= filter_->max_count()) sticky_.emplace(f, id);
    ASSERT_TRUE(filter_->contains(h));
  }

  void take(std::uint64_t f) {
    auto it = held_by_fp_.find(f);
    if (--it->second == 0) held_by_fp_.erase(it);
  }

  void remove_held() {
    const std::size_t slot = pick(held_.size());
    const std::uint64_t id = held_[slot];
    held_[slot] = held_.back();
    held_.pop_back();
    model_.erase(model_.find(id));
    ASSERT_FALSE(filter_->remove(hashes_[id])) << "held key " << id << " refused";
    take(fingerprints_[id]);
    if (has_cell(fingerprints_[id])) {
      ASSERT_TRUE(filter_->contains(hashes_[id]));
    }
  }

  void remove_absent() {
    std::uint64_t id = pick(hashes_.size());
    for (int tries = 0; tries < 8 && model_.contains(id); ++tries) id = pick(hashes_.size());
    if (model_.contains(id)) return;
    const std::uint64_t f = fingerprints_[id];
    const std::uint32_t count_before = filter_->count(hashes_[id]);
    const std::error_code ec = filter_->remove(hashes_[id]);
    if (!has_cell(f)) {
      ASSERT_EQ(ec, FilterErrc::remove_underflow) << "absent key " << id;
      ASSERT_EQ(count_before, 0U);
      ++refused_removes_;
      return;
    }
    // It shares a held fingerprint: the filter cannot tell it from the held
    // keys, and takes one unit from their cell. Adding it back restores it.
    ASSERT_FALSE(ec) << "absent key " << id << " with a held fingerprint";
    ++accepted_absent_;
    ASSERT_FALSE(filter_->add(hashes_[id]));
    ASSERT_EQ(filter_->count(hashes_[id]), count_before);
  }

  void check() {
    for (std::uint64_t id : model_) ASSERT_TRUE(filter_->contains(hashes_[id])) << id;
    std::uint64_t size = 0;
    std::uint64_t cells = 0;
    const std::uint32_t max = filter_->max_count();
    std::set<std::uint64_t> checked;
    const auto expect_count = [&](std::uint64_t f, std::uint64_t id) {
      if (!checked.insert(f).second) return;
      const auto it = held_by_fp_.find(f);
      const std::uint32_t held = it == held_by_fp_.end() ? 0 : it->second;
      const std::uint32_t expected = sticky_.contains(f) ? max : held;
      ASSERT_EQ(filter_->count(hashes_[id]), expected) << "key " << id;
      size += expected;
      cells += expected > 0 ? 1 : 0;
    };
    for (std::uint64_t id : model_) ASSERT_NO_FATAL_FAILURE(expect_count(fingerprints_[id], id));
    for (const auto& [f, id] : sticky_) ASSERT_NO_FATAL_FAILURE(expect_count(f, id));
    ASSERT_EQ(filter_->size(), size);
    ASSERT_EQ(filter_->occupied_cells(), cells);
    ASSERT_EQ(filter_->saturated_counters(), sticky_.size());
    ASSERT_EQ(filter_->refused_adds(), refused_adds_);
    ASSERT_EQ(filter_->refused_removes(), refused_removes_);
    if (sticky_.empty()) {
      ASSERT_EQ(filter_->size(), model_.size());  // no counter saturated: counts are exact
    }
    std::uint64_t load = 0;
    const DleftParams& p = filter_->params();
    for (std::uint32_t s = 0; s < p.subtables; ++s) {
      for (std::uint64_t b = 0; b < p.buckets; ++b) load += filter_->bucket_load(s, b);
    }
    ASSERT_EQ(load, cells);
  }

  std::optional<DleftCountingFilter> filter_;
  std::mt19937_64 rng_;
  std::vector<Hash128> hashes_;
  std::vector<std::uint64_t> fingerprints_;
  std::multiset<std::uint64_t> model_;
  std::vector<std::uint64_t> held_;  // model_ as a vector, to pick a held key in O(1)
  std::map<std::uint64_t, std::uint32_t> held_by_fp_;  // fingerprint -> keys of model_
  std::map<std::uint64_t, std::uint64_t> sticky_;      // saturated fingerprint -> a key of it
  std::uint64_t refused_adds_ = 0;
  std::uint64_t refused_removes_ = 0;
  std::uint64_t accepted_absent_ = 0;
  bool shared_ = false;
};

TEST_P(DleftModel, AgreesWithAMultisetOfKeysUnderRandomChurn) {
  const ModelConfig& config = GetParam();
  bool growing = true;
  std::uint64_t next_checkpoint = 1;
  for (std::uint64_t op = 1; op <= config.ops; ++op) {
    if (held_.size() >= config.max_held) growing = false;
    if (held_.empty()) growing = true;
    const std::uint64_t roll = pick(100);
    if (roll < 10) {
      ASSERT_NO_FATAL_FAILURE(remove_absent()) << "op " << op;
    } else if (held_.empty() || roll < (growing ? 60U : 35U)) {
      ASSERT_NO_FATAL_FAILURE(add(pick(hashes_.size()))) << "op " << op;
    } else {
      ASSERT_NO_FATAL_FAILURE(remove_held()) << "op " << op;
    }
    if (op == next_checkpoint || op == config.ops) {
      ASSERT_NO_FATAL_FAILURE(check()) << "after op " << op;
      next_checkpoint = op + 1 + pick(pick(2) == 0 ? kShortCheckpointGap : kLongCheckpointGap);
    }
  }
  EXPECT_GT(refused_removes_, 0U);
  EXPECT_EQ(refused_adds_ > 0, config.overflows);
  EXPECT_EQ(!sticky_.empty(), config.saturates);
  if (config.shares_fingerprints) {
    EXPECT_TRUE(shared_);
    EXPECT_GT(accepted_absent_, 0U);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configs, DleftModel,
    ::testing::Values(
        // The seed's layout at its load: up to 12,000 keys in 4 x 500 buckets
        // of 8 (6 per bucket at the peak), r = 12. Keys come from 200,000, so
        // few repeat and few cells saturate (they stay, filling the table).
        ModelConfig{"SeedLoad",
                    {4, 500, 8, 12, 2},
                    200'000,
                    12'000,
                    1'200'000,
                    0xd1e0001,
                    false,
                    true,
                    false},
        // U = 4 x 2^4 = 64 fingerprints for 400 keys: shared cells, overflows
        // (16 cells), saturated 2-bit counters.
        ModelConfig{"Crowded", {2, 4, 2, 4, 2}, 400, 300, 600'000, 0xd1e0002, true, true, true},
        // One subtable, 3-bit counters to 7, 5 cells of 9 bits per bucket.
        ModelConfig{
            "OneSubtable", {1, 64, 5, 6, 3}, 300, 1'200, 600'000, 0xd1e0003, true, true, true},
        // 40-bit cells, 5 per bucket: two groups (3 + 2), across word boundaries.
        ModelConfig{
            "WideCells", {3, 40, 5, 32, 8}, 800, 900, 600'000, 0xd1e0004, true, false, false}),
    [](const ::testing::TestParamInfo<ModelConfig>& param) { return param.param.name; });

}  // namespace
}  // namespace sumcache::filters
