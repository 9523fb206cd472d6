#pragma once
// A seeded random workload over a store: inserts, lookups with body loads,
// removals, variant removals and refreshes on a small key space, so that
// replacement and eviction happen all the time.

#include <cstdint>
#include <random>
#include <string>

#include "daemon/store/store.h"
#include "daemon/store/store_error.h"
#include "tests/daemon/store/store_test_support.h"

namespace sumcache::daemon::testing {

struct Workload {
  std::uint32_t keys = 2000;
  std::uint32_t variants = 3;    // "" and up to two Vary variants
  std::uint32_t max_body = 400;  // bytes
};

class WorkloadRunner {
 public:
  WorkloadRunner(Store& store, std::uint64_t seed, Workload w) : store_(store), rng_(seed), w_(w) {}

  void run(std::uint64_t ops) {
    for (std::uint64_t i = 0; i < ops; ++i) step();
  }

  void step() {
    const std::string key = "http://w.example/" + std::to_string(pick(w_.keys));
    const std::uint32_t v = pick(w_.variants);
    const std::string variant = v == 0 ? std::string() : "enc" + std::to_string(v);
    const std::uint32_t what = pick(100);
    if (what < 45) {
      std::string body(pick(w_.max_body), static_cast<char>('a' + pick(26)));
      const auto ec = store_.insert(make_object(store_, key, std::move(body), variant));
      EXPECT_FALSE(ec) << ec.message();
    } else if (what < 75) {
      store_.find(key, store_.hash_key(key), found_);
      for (const ObjectPtr& o : found_) {
        EXPECT_EQ(o->key, key);
        if (!o->body && pick(4) == 0) (void)store_.load_body(o);  // may race to stale
      }
    } else if (what < 83) {
      store_.remove(key);
    } else if (what < 91) {
      store_.remove_variant(key, variant);
    } else {
      const auto ec = store_.update_meta(key, variant, "m" + std::to_string(pick(1000)), "h");
      EXPECT_TRUE(!ec || ec == StoreErrc::not_found || ec == StoreErrc::stale) << ec.message();
    }
  }

 private:
  std::uint32_t pick(std::uint32_t n) { return static_cast<std::uint32_t>(rng_() % n); }

  Store& store_;
  std::mt19937_64 rng_;
  Workload w_;
  std::vector<ObjectPtr> found_;
};

}  // namespace sumcache::daemon::testing
