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

  // Bytes [offset, offset + out.size()); the range must lie within size().
  void fill(std::uint64_t offset, std::span<char> out) const {
    if (key_) {
      fill_body(*key_, offset, out);
    } else {
      std::copy_n(text_.begin() + static_cast<std::ptrdiff_t>(offset), out.size(), out.begin());
    }
  }

 private:
  std::string text_;
  std::optional<std::uint64_t> key_;
  std::uint64_t size_ = 0;
};

}  // namespace sumcache::testing
