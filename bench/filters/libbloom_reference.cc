#include "bench/filters/libbloom_reference.h"

#include <bloom.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace sumcache::bench {

LibBloom::LibBloom(std::uint64_t n, double p) : bloom_(new struct bloom) {
  if (n > INT_MAX || bloom_init(bloom_, static_cast<int>(n), p) != 0) {
    std::fprintf(stderr, "libbloom: bloom_init(%llu, %g) failed\n",
                 static_cast<unsigned long long>(n), p);
    std::abort();
  }
}

LibBloom::~LibBloom() {
  bloom_free(bloom_);
  delete bloom_;
}

void LibBloom::add(std::string_view key) {
  bloom_add(bloom_, key.data(), static_cast<int>(key.size()));
}

bool LibBloom::contains(std::string_view key) {
  return bloom_check(bloom_, key.data(), static_cast<int>(key.size())) == 1;
}

std::vector<unsigned char> LibBloom::save_bits() const {
  return {bloom_->bf, bloom_->bf + bloom_->bytes};
}

void LibBloom::restore_bits(const std::vector<unsigned char>& bits) {
  if (bits.size() != static_cast<std::size_t>(bloom_->bytes)) std::abort();
  std::memcpy(bloom_->bf, bits.data(), bits.size());
}

std::uint64_t LibBloom::memory_bytes() const { return static_cast<std::uint64_t>(bloom_->bytes); }

}  // namespace sumcache::bench
