// Randomized model test: a CountingBloomFilter against a std::multiset of key
// ids, over 2,000,000 mixed adds and removes with fixed seeds. Keys come from a
// small universe, so they repeat and pile up on counters until some saturate.
//
// What the model pins, after every operation or at checkpoints a random number
// of operations apart:
// - a key the model holds is always contained (no false negatives);
// - a remove of a key the model holds is accepted;
// - a remove of a key the model lacks is accepted exactly when each probed
//   counter is saturated or holds at least as many units as probes land on it.
//   Accepting it takes units that other keys own, so the test adds the key back
//   at once and checks that this restores every counter;
// - a counter below 15 equals the exact number of probe hits from the model's
//   keys, and a counter is 15 exactly when that number ever reached 15;
// - pending_changes() is, after every operation, the number of bits that differ
//   from the last checkpoint's bit view, and the log overflows exactly when that
//   number would pass the cap;
// - at each checkpoint the changes taken are the diff of the bit views.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <optional>
#include <ostream>
#include <random>
#include <set>
#include <vector>

#include "filters/counting_bloom_filter.h"
#include "filters/filter_error.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {
namespace {

struct ModelConfig {
  const char* name;
  BloomParams params;
  std::uint64_t universe;  // distinct key ids
  std::size_t max_held;    // the held population swings between 0 and this
  std::uint64_t seed;
  // Cases the run must meet, or it would not be testing them.
  bool saturates;
  bool refuses_contained_keys;  // refused although every probed counter is nonzero
  bool overflows_log;
};

// Names the config in test listings instead of dumping its bytes.
// NOLINTNEXTLINE(readability-identifier-naming): GoogleTest finds it by this name.
void PrintTo(const ModelConfig& config, std::ostream* os) { *os << config.name; }

constexpr std::uint64_t kOpsPerConfig = 500'000;
constexpr std::uint64_t kShortCheckpointGap = 300;
constexpr std::uint64_t kLongCheckpointGap = 40'000;
constexpr std::uint32_t kMax = CountingBloomFilter::kMaxCount;

class CountingModel : public ::testing::TestWithParam<ModelConfig> {
 protected:
  void SetUp() override {
    const ModelConfig& config = GetParam();
    params_ = config.params;
    filter_ = std::move(CountingBloomFilter::create(params_)).value();
    rng_.seed(config.seed);
    for (std::uint64_t id = 0; id < config.universe; ++id) {
      hashes_.push_back(Hasher{}(sumcache::testing::url_key(id)));
      ProbeSequence probes(hashes_.back(), params_.m);
      std::vector<std::uint64_t> positions(params_.k);
      for (auto& p : positions) p = probes.next();
      probes_.push_back(std::move(positions));
    }
    exact_.assign(params_.m, 0);
    peak_.assign(params_.m, 0);
    differs_.assign(params_.m, false);
    filter_->mark();
    previous_view_ = filter_->bit_view();
  }

  std::uint64_t pick(std::uint64_t n) {
    return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_);
  }

  // A saturated counter never returns to zero, so the bit is set while the
  // exact count is positive or once it has reached 15.
  bool model_bit(std::uint64_t p) const { return exact_[p] > 0 || peak_[p] >= kMax; }

  // Bit p of the view flipped: it now differs from the last checkpoint, or no longer does.
  void flipped(std::uint64_t p) {
    differs_[p] = !differs_[p];
    diff_ = differs_[p] ? diff_ + 1 : diff_ - 1;
    if (diff_ > filter_->change_log_cap()) logging_ = false;
  }

  void add(std::uint64_t id) {
    filter_->add(hashes_[id]);
    model_.insert(id);
    held_.push_back(id);
    for (std::uint64_t p : probes_[id]) {
      const bool before = model_bit(p);
      peak_[p] = std::max(peak_[p], ++exact_[p]);
      if (model_bit(p) != before) flipped(p);
    }
    ASSERT_TRUE(filter_->contains(hashes_[id]));
  }

  void remove_held() {
    const std::size_t slot = pick(held_.size());
    const std::uint64_t id = held_[slot];
    held_[slot] = held_.back();
    held_.pop_back();
    model_.erase(model_.find(id));
    ASSERT_FALSE(filter_->remove(hashes_[id])) << "held key " << id << " refused";
    for (std::uint64_t p : probes_[id]) {
      const bool before = model_bit(p);
      --exact_[p];
      if (model_bit(p) != before) flipped(p);
    }
    if (model_.contains(id)) {
      ASSERT_TRUE(filter_->contains(hashes_[id]));
    }
  }

  void remove_absent() {
    std::uint64_t id = pick(hashes_.size());
    for (int tries = 0; tries < 8 && model_.contains(id); ++tries) id = pick(hashes_.size());
    if (model_.contains(id)) return;
    // Probes per counter, counted apart from can_remove().
    std::map<std::uint64_t, unsigned> needed;
    for (std::uint64_t p : probes_[id]) ++needed[p];
    std::map<std::uint64_t, unsigned> before;
    for (const auto& [p, n] : needed) before[p] = filter_->counter(p);
    const bool expect_accept = std::ranges::all_of(needed, [&](const auto& e) {
      return before[e.first] == kMax || before[e.first] >= e.second;
    });
    const bool looked_present = filter_->contains(hashes_[id]);
    const std::uint64_t refused = filter_->refused_removes();
    const std::error_code ec = filter_->remove(hashes_[id]);
    if (ec) {
      ASSERT_EQ(ec, FilterErrc::remove_underflow);
      ASSERT_FALSE(expect_accept) << "absent key " << id;
      ASSERT_EQ(filter_->refused_removes(), refused + 1);
      ++refusals_;
      refusals_of_contained_ += looked_present ? 1 : 0;
    } else {
      ASSERT_TRUE(expect_accept) << "absent key " << id;
      ASSERT_TRUE(looked_present);
      ASSERT_EQ(filter_->refused_removes(), refused);
      give_back(id, before);
      ++accepted_absent_;
    }
    for (const auto& [p, c] : before) ASSERT_EQ(filter_->counter(p), c);
  }

  // An absent key's accepted remove took units that other keys own: adds the
  // key back, which must restore every counter. Bits flip in probe order, as
  // the filter logs them: a counter taken to zero at its last probe, and back
  // to nonzero at its first.
  void give_back(std::uint64_t id, const std::map<std::uint64_t, unsigned>& before) {
    std::map<std::uint64_t, unsigned> taken;
    for (std::uint64_t p : probes_[id]) {
      if (before.at(p) != kMax && ++taken[p] == before.at(p)) flipped(p);
    }
    filter_->add(hashes_[id]);
    std::set<std::uint64_t> restored;
    for (std::uint64_t p : probes_[id]) {
      if (taken[p] == before.at(p) && restored.insert(p).second) flipped(p);
    }
  }

  void check_log() {
    ASSERT_EQ(filter_->changes_logged(), logging_);
    ASSERT_EQ(filter_->pending_changes(), logging_ ? diff_ : filter_->change_log_cap() + 1);
  }

  void check_counters() {
    std::vector<std::uint32_t> rebuilt(params_.m, 0);
    for (std::uint64_t id : model_) {
      for (std::uint64_t p : probes_[id]) ++rebuilt[p];
    }
    ASSERT_EQ(rebuilt, exact_);
    std::uint64_t nonzero = 0;
    std::uint64_t saturated = 0;
    for (std::uint64_t i = 0; i < params_.m; ++i) {
      const std::uint32_t expected = peak_[i] >= kMax ? kMax : exact_[i];
      ASSERT_EQ(filter_->counter(i), expected) << "counter " << i;
      nonzero += expected != 0 ? 1 : 0;
      saturated += expected == kMax ? 1 : 0;
    }
    ASSERT_EQ(filter_->count_nonzero(), nonzero);
    ASSERT_EQ(filter_->saturated_counters(), saturated);
    max_saturated_ = std::max(max_saturated_, saturated);
    for (std::uint64_t id : model_) ASSERT_TRUE(filter_->contains(hashes_[id])) << id;
  }

  void check_changes() {
    const BloomFilter view = filter_->bit_view();
    std::vector<std::uint64_t> expected;
    for (std::uint64_t i = 0; i < params_.m; ++i) {
      if (view.test_bit(i) != previous_view_->test_bit(i)) expected.push_back(i);
    }
    ASSERT_EQ(diff_, expected.size());
    Result<std::vector<std::uint64_t>> taken = std::vector<std::uint64_t>{};
    if (pick(2) == 0) {
      taken = filter_->take_changes();
    } else {
      taken = filter_->changed_since_mark();
      filter_->mark();
    }
    if (logging_) {
      ASSERT_TRUE(taken.ok());
      ASSERT_EQ(taken.value(), expected);
      ++windows_logged_;
    } else {
      ASSERT_EQ(taken.error(), FilterErrc::change_log_overflow);
      ++windows_overflowed_;
    }
    differs_.assign(params_.m, false);
    diff_ = 0;
    logging_ = true;
    ASSERT_EQ(filter_->pending_changes(), 0U);
    previous_view_ = view;
  }

  BloomParams params_;
  std::optional<CountingBloomFilter> filter_;
  std::mt19937_64 rng_;
  std::vector<Hash128> hashes_;
  std::vector<std::vector<std::uint64_t>> probes_;
  std::multiset<std::uint64_t> model_;
  std::vector<std::uint64_t> held_;   // model_ as a vector, to pick a held key in O(1)
  std::vector<std::uint32_t> exact_;  // probe hits from model_, per counter
  std::vector<std::uint32_t> peak_;   // the largest exact_ ever was
  std::optional<BloomFilter> previous_view_;
  std::vector<bool> differs_;  // bit differs from previous_view_
  std::size_t diff_ = 0;       // how many do
  bool logging_ = true;        // whether the filter should still log its changes
  std::uint64_t refusals_ = 0;
  std::uint64_t refusals_of_contained_ = 0;
  std::uint64_t accepted_absent_ = 0;
  std::uint64_t max_saturated_ = 0;
  std::uint64_t windows_logged_ = 0;
  std::uint64_t windows_overflowed_ = 0;
};

TEST_P(CountingModel, AgreesWithAMultisetOfKeysUnderRandomChurn) {
  const ModelConfig& config = GetParam();
  bool growing = true;
  std::uint64_t next_checkpoint = 1;
  for (std::uint64_t op = 1; op <= kOpsPerConfig; ++op) {
    if (held_.size() >= config.max_held) growing = false;
    if (held_.empty()) growing = true;
    const std::uint64_t roll = pick(100);
    if (roll < 10) {
      ASSERT_NO_FATAL_FAILURE(remove_absent());
    } else if (held_.empty() || roll < (growing ? 60U : 35U)) {
      ASSERT_NO_FATAL_FAILURE(add(pick(hashes_.size())));
    } else {
      ASSERT_NO_FATAL_FAILURE(remove_held());
    }
    ASSERT_NO_FATAL_FAILURE(check_log()) << "after op " << op;
    if (op == next_checkpoint || op == kOpsPerConfig) {
      ASSERT_NO_FATAL_FAILURE(check_counters()) << "after op " << op;
      ASSERT_NO_FATAL_FAILURE(check_changes()) << "after op " << op;
      next_checkpoint = op + 1 + pick(pick(2) == 0 ? kShortCheckpointGap : kLongCheckpointGap);
    }
  }
  EXPECT_GT(refusals_, 0U);
  EXPECT_GT(accepted_absent_, 0U);
  EXPECT_EQ(filter_->refused_removes(), refusals_);
  EXPECT_GT(windows_logged_, 0U);
  if (config.saturates) {
    EXPECT_GT(max_saturated_, 0U);
  }
  if (config.refuses_contained_keys) {
    EXPECT_GT(refusals_of_contained_, 0U);
  }
  if (config.overflows_log) {
    EXPECT_GT(windows_overflowed_, 0U);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Configs, CountingModel,
    ::testing::Values(
        // Summary Cache's load at the peak: 16 counters per held key, k = 4.
        ModelConfig{"SummaryCacheLoad", {65'536, 4}, 16'384, 4096, 0x5eed0001, false, false, true},
        ModelConfig{"DenseSevenProbes", {2'000, 7}, 600, 900, 0x5eed0002, true, false, true},
        ModelConfig{"HotKeysRepeat", {4'096, 4}, 64, 1500, 0x5eed0003, true, false, false},
        // 12 counters and 6 probes: one key's probes often share a counter.
        ModelConfig{"TinyFilterRepeatedProbes", {12, 6}, 40, 6, 0x5eed0004, true, true, false}),
    [](const ::testing::TestParamInfo<ModelConfig>& param) { return param.param.name; });

}  // namespace
}  // namespace sumcache::filters
