#pragma once
// One shape for every filter under benchmark: constructed from (n, p), with
// add, contains and memory_bytes on string keys.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "bench/filters/libbloom_reference.h"
#include "filters/blocked_bloom_filter.h"
#include "filters/bloom_filter.h"
#include "filters/counting_bloom_filter.h"
#include "filters/dleft_counting_filter.h"
#include "filters/scalable_bloom_filter.h"

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

struct CountingAdapter {
  CountingAdapter(std::uint64_t n, double p)
      : f(checked(filters::CountingBloomFilter::for_capacity(n, p))) {}
  void add(std::string_view key) { f.add(key); }
  std::error_code remove(std::string_view key) { return f.remove(key); }
  bool contains(std::string_view key) const { return f.contains(key); }
  std::uint64_t memory_bytes() const { return f.memory_bytes(); }
  filters::CountingBloomFilter f;
};

// The seed's layout (d = 4, 8 cells of r + 2 bits, 6 keys per bucket at n)
// with the least r that meets p.
struct DleftAdapter {
  DleftAdapter(std::uint64_t n, double p)
      : f(checked(filters::DleftCountingFilter::for_capacity(n, p))) {}
  void add(std::string_view key) { (void)f.add(key); }
  std::error_code remove(std::string_view key) { return f.remove(key); }
  bool contains(std::string_view key) const { return f.contains(key); }
  std::uint64_t memory_bytes() const { return f.memory_bytes(); }
  filters::DleftCountingFilter f;
};

struct BlockedAdapter {
  BlockedAdapter(std::uint64_t n, double p)
      : f(checked(filters::BlockedBloomFilter::for_capacity(n, p))) {}
  void add(std::string_view key) { f.add(key); }
  bool contains(std::string_view key) const { return f.contains(key); }
  std::uint64_t memory_bytes() const { return f.memory_bytes(); }
  filters::BlockedBloomFilter f;
};

// Starts at a tenth of n, so that it grows into n as an unknown-n filter would.
struct ScalableAdapter {
  ScalableAdapter(std::uint64_t n, double p)
      : f(checked(filters::ScalableBloomFilter::create(n / 10, p))) {}
  void add(std::string_view key) { (void)f.add(key); }
  bool contains(std::string_view key) const { return f.contains(key); }
  std::uint64_t memory_bytes() const { return f.memory_bytes(); }
  filters::ScalableBloomFilter f;
};

}  // namespace sumcache::bench
