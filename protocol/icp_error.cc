#include "protocol/icp_error.h"

#include <string>

namespace sumcache::protocol {
namespace {

class IcpCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "sumcache.protocol.icp"; }

  std::string message(int value) const override {
    switch (static_cast<IcpErrc>(value)) {
      case IcpErrc::ok:
        return "success";
      case IcpErrc::truncated:
        return "ICP message is truncated";
      case IcpErrc::datagram_too_large:
        return "ICP datagram exceeds 16384 octets";
      case IcpErrc::bad_version:
        return "ICP version is not 2";
      case IcpErrc::length_mismatch:
        return "ICP message length differs from the datagram size";
      case IcpErrc::unknown_opcode:
        return "unknown ICP opcode";
      case IcpErrc::hit_obj_unsupported:
        return "ICP_OP_HIT_OBJ is not supported";
      case IcpErrc::url_unterminated:
        return "ICP URL is not NUL-terminated";
      case IcpErrc::url_too_long:
        return "ICP URL exceeds 8192 octets";
      case IcpErrc::trailing_bytes:
        return "ICP message has bytes after its URL";
      case IcpErrc::invalid_url:
        return "URL contains a NUL octet";
      case IcpErrc::not_encodable:
        return "this ICP opcode is decoded only";
    }
    return "unknown ICP error";
  }
};

}  // namespace

const std::error_category& icp_category() noexcept {
  static const IcpCategory category;
  return category;
}

}  // namespace sumcache::protocol
