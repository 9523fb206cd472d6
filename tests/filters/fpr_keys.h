#pragma once
// The keys of the false positive rate tests: keys 0 .. kFprInserted-1 are
// added, the next kFprProbed are probed as absent. Hashed once per process
// (each ctest entry is a process of its own).

#include <cstdint>
#include <vector>

#include "filters/hashing.h"
#include "tests/support/url_keys.h"

namespace sumcache::filters {

inline constexpr std::uint64_t kFprInserted = 100'000;
inline constexpr std::uint64_t kFprProbed = 1'000'000;

inline const std::vector<Hash128>& fpr_key_hashes() {
  static const std::vector<Hash128> hashes = [] {
    std::vector<Hash128> all;
    all.reserve(kFprInserted + kFprProbed);
    for (std::uint64_t i = 0; i < kFprInserted + kFprProbed; ++i) {
      all.push_back(Hasher{}(sumcache::testing::url_key(i)));
    }
    return all;
  }();
  return hashes;
}

}  // namespace sumcache::filters
