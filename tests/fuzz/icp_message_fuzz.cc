// ICP datagrams as the ICP agent receives them (protocol/icp_message.h). Property:
// the decoder is strict, so a datagram it accepts encodes back to the same bytes.

#include <cstddef>
#include <cstdint>
#include <span>

#include "protocol/icp_message.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache::protocol;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> datagram(data, size);
  const auto message = decode_icp(datagram);
  if (!message) return 0;
  SUMCACHE_FUZZ_CHECK(icp_encoded_size(*message) == size);
  const auto encoded = encode_icp(*message);
  SUMCACHE_FUZZ_CHECK(encoded.ok());
  SUMCACHE_FUZZ_CHECK(
      std::equal(datagram.begin(), datagram.end(), encoded->begin(), encoded->end()));
  static_cast<void>(to_string(message->opcode));
  static_cast<void>(is_icp_reply(message->opcode));
  return 0;
}
