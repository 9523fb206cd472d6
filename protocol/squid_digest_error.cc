#include "protocol/squid_digest_error.h"

#include <string>

namespace sumcache::protocol {
namespace {

class SquidDigestCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "sumcache.protocol.squid_digest"; }

  std::string message(int value) const override {
    switch (static_cast<SquidDigestErrc>(value)) {
      case SquidDigestErrc::ok:
        return "success";
      case SquidDigestErrc::truncated:
        return "Squid cache digest is truncated";
      case SquidDigestErrc::trailing_bytes:
        return "Squid cache digest has bytes after its mask";
      case SquidDigestErrc::version_unsupported:
        return "Squid cache digest version is not supported";
      case SquidDigestErrc::inconsistent_header:
        return "Squid cache digest header is inconsistent";
      case SquidDigestErrc::mask_size_mismatch:
        return "Squid cache digest mask_size differs from its capacity and bits per entry";
      case SquidDigestErrc::hash_count_unsupported:
        return "Squid cache digest does not use 4 hash functions";
      case SquidDigestErrc::too_large:
        return "Squid cache digest mask exceeds the size limit";
      case SquidDigestErrc::too_many_bits_set:
        return "Squid cache digest has more than 65% of its bits set";
    }
    return "unknown Squid cache digest error";
  }
};

}  // namespace

const std::error_category& squid_digest_category() noexcept {
  static const SquidDigestCategory category;
  return category;
}

}  // namespace sumcache::protocol
