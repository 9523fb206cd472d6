#include "protocol/protocol_error.h"

#include <string>

namespace sumcache::protocol {
namespace {

class ProtocolCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "sumcache.protocol"; }

  std::string message(int value) const override {
    switch (static_cast<ProtocolErrc>(value)) {
      case ProtocolErrc::ok:
        return "success";
      case ProtocolErrc::truncated:
        return "summary message is truncated";
      case ProtocolErrc::bad_magic:
        return "not a summary message (bad magic)";
      case ProtocolErrc::unsupported_version:
        return "summary format version cannot be read";
      case ProtocolErrc::unknown_node:
        return "summary from an unknown node";
      case ProtocolErrc::bad_tag:
        return "summary authentication tag mismatch";
      case ProtocolErrc::over_cap:
        return "summary size exceeds the configured cap";
      case ProtocolErrc::inconsistent_sizes:
        return "summary sizes are inconsistent";
      case ProtocolErrc::bad_encoding:
        return "summary field or payload is malformed";
      case ProtocolErrc::unknown_hash:
        return "summary uses an unknown hash";
      case ProtocolErrc::sequence_gap:
        return "summary delta skips a sequence: full summary needed";
      case ProtocolErrc::epoch_mismatch:
        return "summary delta from another epoch: full summary needed";
      case ProtocolErrc::params_mismatch:
        return "summary delta does not match the held parameters: full summary needed";
      case ProtocolErrc::no_state:
        return "summary delta before any full summary";
      case ProtocolErrc::stale_epoch:
        return "summary of an epoch below the one held (a replay, or the sender's clock set back)";
      case ProtocolErrc::invalid_summary:
        return "summary to encode breaks a precondition";
      case ProtocolErrc::signing_failed:
        return "summary could not be signed (HMAC-SHA256 failed)";
    }
    return "unknown protocol error";
  }
};

}  // namespace

const std::error_category& protocol_category() noexcept {
  static const ProtocolCategory category;
  return category;
}

}  // namespace sumcache::protocol
