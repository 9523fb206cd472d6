#pragma once
// BodySource: the body of a test origin response, literal text or generated
// bytes (deterministic_body.h) produced piece by piece; internal to the origin.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "tests/support/deterministic_body.h"

namespace sumcache::testing {

class BodySource {
 public:
  BodySource() = default;
  static BodySource text(std::string text) {
    BodySource body;
    body.size_ = text.size();
    body.text_ = std::move(text);
    return body;
  }
  static BodySource generated(std::uint64_t key, std::uint64_t size) {
    BodySource body;
    body.key_ = key;
    body.size_ = size;
    return body;
  }

  std::uint64_t size() const { return size_; }

  // Bytes [first, first + size) of this body, for a 206; the range must lie within size().
  BodySource window(std::uint64_t first, std::uint64_t size) const {
    BodySource body = *this;
    body.offset_ += first;
    body.size_ = size;
    return body;
  }

  // Bytes [offset, offset + out.size()); the range must lie within size().
  void fill(std::uint64_t offset, std::span<char> out) const {
    if (key_) {
      fill_body(*key_, offset_ + offset, out);
    } else {
      std::copy_n(text_.begin() + static_cast<std::ptrdiff_t>(offset_ + offset), out.size(),
                  out.begin());
    }
  }

 private:
  std::string text_;
  std::optional<std::uint64_t> key_;
  std::uint64_t offset_ = 0;
  std::uint64_t size_ = 0;
};

}  // namespace sumcache::testing
