#pragma once
// Little-endian field encoding for the filters' serialized forms, and the
// checksum they carry. Explicit byte order: never memcpy a struct to the wire.

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace sumcache::filters {

template <class T>
  requires std::is_unsigned_v<T>
void put_le(std::vector<std::uint8_t>& out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
  }
}

// The same into a message being built as bytes of a string (the wire protocols).
template <class T>
  requires std::is_unsigned_v<T>
void put_le(std::string& out, T value) {
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    out.push_back(static_cast<char>(static_cast<std::uint8_t>(value >> (8 * i))));
  }
}

// Reads fields in order; the caller checks the total length first, and a
// read past the end yields zero rather than touching memory outside the span.
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> bytes) : bytes_(bytes) {}

  template <class T>
    requires std::is_unsigned_v<T>
  T le() {
    if (bytes_.size() - pos_ < sizeof(T)) {  // pos_ <= size() always holds
      pos_ = bytes_.size();
      return 0;
    }
    T value = 0;
    for (std::size_t i = 0; i < sizeof(T); ++i) {
      value |= static_cast<T>(static_cast<T>(bytes_[pos_ + i]) << (8 * i));
    }
    pos_ += sizeof(T);
    return value;
  }
  std::size_t position() const { return pos_; }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t pos_ = 0;
};

// XXH3-64 of the bytes, seed 0: already linked for hashing, and strong enough
// to catch damage (it is not an authentication tag).
std::uint64_t checksum64(std::span<const std::uint8_t> bytes);

}  // namespace sumcache::filters
