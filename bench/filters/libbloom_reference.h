#pragma once
// libbloom (Debian's libbloom-dev, Jyri J. Virkki's C library): the common C
// Bloom filter, built into the same binary as the reference our figures are
// ratios against.

#include <cstdint>
#include <string_view>

struct bloom;

namespace sumcache::bench {

class LibBloom {
 public:
  LibBloom(std::uint64_t n, double p);
  ~LibBloom();
  LibBloom(const LibBloom&) = delete;
  LibBloom& operator=(const LibBloom&) = delete;

  void add(std::string_view key);
  bool contains(std::string_view key);
  std::uint64_t memory_bytes() const;

 private:
  bloom* bloom_;
};

}  // namespace sumcache::bench
