#include "protocol/invalidation_error.h"

#include <string>

namespace sumcache::protocol {
namespace {

class InvalidationCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "sumcache.invalidation"; }

  std::string message(int value) const override {
    switch (static_cast<InvalidationErrc>(value)) {
      case InvalidationErrc::ok:
        return "success";
      case InvalidationErrc::truncated:
        return "invalidation message is truncated";
      case InvalidationErrc::bad_magic:
        return "not an invalidation message (bad magic)";
      case InvalidationErrc::unsupported_version:
        return "invalidation format version cannot be read";
      case InvalidationErrc::unknown_node:
        return "invalidation message from an unknown node";
      case InvalidationErrc::bad_tag:
        return "invalidation message authentication tag mismatch";
      case InvalidationErrc::over_cap:
        return "invalidation message size exceeds its bound";
      case InvalidationErrc::inconsistent_sizes:
        return "invalidation message sizes are inconsistent";
      case InvalidationErrc::bad_encoding:
        return "invalidation message field or entry is malformed";
      case InvalidationErrc::wrong_kind:
        return "invalidation message of the other kind than expected";
      case InvalidationErrc::trailing_bytes:
        return "invalidation message has bytes after its last entry";
      case InvalidationErrc::invalid_message:
        return "invalidation message to encode breaks a rule of the format";
      case InvalidationErrc::signing_failed:
        return "invalidation message could not be signed (HMAC-SHA256 failed)";
    }
    return "unknown invalidation error";
  }
};

}  // namespace

const std::error_category& invalidation_category() noexcept {
  static const InvalidationCategory category;
  return category;
}

}  // namespace sumcache::protocol
