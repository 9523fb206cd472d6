#include "daemon/store/checksum_stream.h"

#include <xxhash.h>

namespace sumcache::daemon {

// XXH3_state_t is opaque unless XXH_STATIC_LINKING_ONLY; holding it through
// the library's own allocator keeps this header free of xxhash.h.
struct ChecksumStream::State {
  XXH3_state_t* s = XXH3_createState();
  State() { XXH3_64bits_reset(s); }
  ~State() { XXH3_freeState(s); }
  State(const State&) = delete;
  State& operator=(const State&) = delete;
};

ChecksumStream::ChecksumStream() : state_(std::make_unique<State>()) {}
ChecksumStream::~ChecksumStream() = default;
ChecksumStream::ChecksumStream(ChecksumStream&&) noexcept = default;
ChecksumStream& ChecksumStream::operator=(ChecksumStream&&) noexcept = default;

void ChecksumStream::update(std::span<const std::uint8_t> bytes) {
  XXH3_64bits_update(state_->s, bytes.data(), bytes.size());
}

void ChecksumStream::update(std::string_view bytes) {
  XXH3_64bits_update(state_->s, bytes.data(), bytes.size());
}

std::uint64_t ChecksumStream::digest() const { return XXH3_64bits_digest(state_->s); }

}  // namespace sumcache::daemon
