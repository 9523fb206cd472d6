#pragma once
// Deterministic 60-byte URL keys for filter tests and benchmarks: key i is
// distinct from key j for i != j, so a range of indexes is a set.

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace sumcache::testing {

inline constexpr std::size_t kUrlKeyBytes = 60;

inline std::string url_key(std::uint64_t i) {
  char buf[96];
  // 25 + 4 + 12 + 6 + 13 = 60 characters for every i below 10^12.
  std::snprintf(buf, sizeof buf, "http://cdn.example.org/o/%03u/%012llu/a.bin%013llu",
                static_cast<unsigned>(i % 997), static_cast<unsigned long long>(i % 1000000000000ULL),
                static_cast<unsigned long long>(i * 2654435761ULL % 10000000000000ULL));
  return std::string(buf);
}

inline std::vector<std::string> url_keys(std::uint64_t first, std::uint64_t count) {
  std::vector<std::string> keys;
  keys.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) keys.push_back(url_key(first + i));
  return keys;
}

}  // namespace sumcache::testing
