#pragma once
// Appends a bit stream to a string, least significant bit first: the first
// bit written is bit 0 of the first byte (docs/protocol.md, "Bit order").

#include <cstdint>
#include <string>

namespace sumcache::protocol {

class BitWriter {
 public:
  explicit BitWriter(std::string& out) : out_(out) {}

  // Appends the low `count` bits of `value`, count <= 64.
  void put(std::uint64_t value, unsigned count) {
    if (count == 0) return;
    if (count < 64) value &= (std::uint64_t{1} << count) - 1;
    buffer_ |= value << used_;
    const unsigned room = 64 - used_;
    if (count < room) {
      used_ += count;
      return;
    }
    flush_word();
    buffer_ = room == 64 ? 0 : value >> room;
    used_ = count - room;
  }
  void put_zeros(std::uint64_t count) {
    for (; count >= 64; count -= 64) put(0, 64);
    put(0, static_cast<unsigned>(count));
  }
  // Writes the bits still buffered, zero-padded to a whole byte.
  void finish();

 private:
  void flush_word();

  std::string& out_;
  std::uint64_t buffer_ = 0;
  unsigned used_ = 0;  // bits of buffer_ in use, < 64
};

}  // namespace sumcache::protocol
