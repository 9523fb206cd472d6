#pragma once
// libbloom (Debian's libbloom-dev, Jyri J. Virkki's C library): the common C
// Bloom filter, built into the same binary as the reference our figures are
// ratios against.

#include <cstdint>
#include <string_view>
#include <vector>

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
  // The bit array, to put a filter back to a saved state between runs of new
  // keys. libbloom 1.6 keeps it in its struct's private `bf`; a benchmark may
  // rely on that, a product may not.
  std::vector<unsigned char> save_bits() const;
  void restore_bits(const std::vector<unsigned char>& bits);

 private:
  bloom* bloom_;
};

}  // namespace sumcache::bench
