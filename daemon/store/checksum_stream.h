#pragma once
// XXH3-64 (seed 0) over bytes fed in pieces: equal to filters::checksum64 of
// their concatenation. Lets a file's checksum cover a header and a 64 MiB
// body without concatenating them.

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

namespace sumcache::daemon {

class ChecksumStream {
 public:
  ChecksumStream();
  ~ChecksumStream();
  ChecksumStream(ChecksumStream&&) noexcept;
  ChecksumStream& operator=(ChecksumStream&&) noexcept;

  void update(std::span<const std::uint8_t> bytes);
  void update(std::string_view bytes);
  std::uint64_t digest() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sumcache::daemon
