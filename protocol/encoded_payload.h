#pragma once
// A payload as the encoder produced it, with the header fields that describe it.

#include <cstdint>
#include <string>

#include "protocol/wire_ids.h"

namespace sumcache::protocol {

struct EncodedPayload {
  Compression compression = Compression::raw;
  std::uint8_t rice_parameter = 0;
  std::uint8_t flags = 0;
  std::uint64_t count = 0;  // the header's payload count
  std::string bytes;
};

}  // namespace sumcache::protocol
