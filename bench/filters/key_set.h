#pragma once
// The benchmark's keys: 60-byte URLs (tests/support/url_keys.h) packed in one
// buffer, so that reading a key costs a sequential load, not a pointer chase.

#include <cstdint>
#include <string_view>
#include <vector>

#include "tests/support/url_keys.h"

namespace sumcache::bench {

class KeySet {
 public:
  KeySet(std::uint64_t first, std::uint64_t count) : count_(count) {
    data_.reserve(count * testing::kUrlKeyBytes);
    for (std::uint64_t i = 0; i < count; ++i) {
      const std::string key = testing::url_key(first + i);
      data_.insert(data_.end(), key.begin(), key.end());
    }
  }
  std::string_view at(std::uint64_t i) const {
    return {data_.data() + i * testing::kUrlKeyBytes, testing::kUrlKeyBytes};
  }
  std::uint64_t size() const { return count_; }

 private:
  std::vector<char> data_;
  std::uint64_t count_;
};

// Keys 0..n-1 are inserted; queries for absent keys come from a disjoint range.
inline constexpr std::uint64_t kAbsentBase = 1'000'000'000;
// Queries cycle through this many keys (a power of two, so wrap is a mask).
inline constexpr std::uint64_t kQueryKeys = std::uint64_t{1} << 20;

const KeySet& present_keys(std::uint64_t n);  // keys 0..n-1, cached per n
const KeySet& absent_keys();                  // kQueryKeys keys never inserted

}  // namespace sumcache::bench
