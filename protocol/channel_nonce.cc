#include "protocol/channel_nonce.h"

#include <openssl/rand.h>

#include <array>

#include "protocol/channel_auth.h"

namespace sumcache::protocol {

std::string fresh_channel_nonce() {
  std::array<unsigned char, kNonceHexBytes / 2> bytes{};
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) return {};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(kNonceHexBytes);
  for (unsigned char b : bytes) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0x0f]);
  }
  return out;
}

}  // namespace sumcache::protocol
