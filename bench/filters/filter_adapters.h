#pragma once
// One shape for every filter under benchmark: constructed from (n, p), with
// add, contains and memory_bytes on string keys.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "bench/filters/libbloom_reference.h"
#include "filters/bloom_filter.h"

namespace sumcache::bench {

template <class T>
T checked(Result<T> r) {
  if (!r) {
    std::fprintf(stderr, "benchmark setup: %s\n", r.error().message().c_str());
    std::abort();
  }
  return std::move(r).value();
}

struct LibBloomAdapter {
  LibBloomAdapter(std::uint64_t n, double p) : f(n, p) {}
  void add(std::string_view key) { f.add(key); }
  bool contains(std::string_view key) { return f.contains(key); }
  std::uint64_t memory_bytes() const { return f.memory_bytes(); }
  LibBloom f;
};

struct BloomAdapter {
  BloomAdapter(std::uint64_t n, double p) : f(checked(filters::BloomFilter::for_capacity(n, p))) {}
  void add(std::string_view key) { f.add(key); }
  bool contains(std::string_view key) const { return f.contains(key); }
  std::uint64_t memory_bytes() const { return f.memory_bytes(); }
  filters::BloomFilter f;
};

}  // namespace sumcache::bench
