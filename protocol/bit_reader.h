#pragma once
// Reads a bit stream written by BitWriter. Every read is bounded by the
// input: a read past the end fails instead of touching memory.

#include <bit>
#include <cstdint>
#include <string_view>

namespace sumcache::protocol {

class BitReader {
 public:
  explicit BitReader(std::string_view bytes) : bytes_(bytes) {}

  // Reads `count` bits, count <= 64; false if fewer are left.
  bool get(unsigned count, std::uint64_t& value) {
    if (count > 56) {  // the buffer refills a byte at a time: split wide reads
      std::uint64_t low = 0;
      std::uint64_t high = 0;
      if (!get(32, low) || !get(count - 32, high)) return false;
      value = low | (high << 32);
      return true;
    }
    refill();
    if (available_ < count) return false;
    value = buffer_ & ((std::uint64_t{1} << count) - 1);
    buffer_ >>= count;
    available_ -= count;
    return true;
  }
  // Reads zero bits up to and including the next one bit; `zeros` is their
  // number. False if more than `max_zeros` zeros come, or no one bit does.
  bool get_unary(std::uint64_t max_zeros, std::uint64_t& zeros) {
    zeros = 0;
    for (;;) {
      refill();
      if (available_ == 0) return false;
      if (buffer_ == 0) {  // bits above available_ are always zero
        zeros += available_;
        available_ = 0;
        if (zeros > max_zeros) return false;
        continue;
      }
      const auto run = static_cast<unsigned>(std::countr_zero(buffer_));
      zeros += run;
      if (zeros > max_zeros) return false;
      buffer_ = (buffer_ >> run) >> 1;
      available_ -= run + 1;
      return true;
    }
  }
  // True once what is left is the zero padding of the last byte.
  bool only_padding_left() const { return pos_ == bytes_.size() && available_ < 8 && buffer_ == 0; }

 private:
  void refill() {
    while (available_ <= 56 && pos_ < bytes_.size()) {
      buffer_ |= std::uint64_t{static_cast<std::uint8_t>(bytes_[pos_++])} << available_;
      available_ += 8;
    }
  }

  std::string_view bytes_;
  std::size_t pos_ = 0;
  std::uint64_t buffer_ = 0;
  unsigned available_ = 0;  // bits of buffer_ not yet read
};

}  // namespace sumcache::protocol
