#include "protocol/message_tag.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <array>
#include <climits>
#include <optional>

#include "protocol/wire_header.h"

namespace sumcache::protocol {
namespace {

using Tag = std::array<unsigned char, kTagBytes>;

// A null key means "reuse the previous key" to some OpenSSL entry points: an
// empty secret points at this real (empty) buffer instead.
constexpr unsigned char kEmptyKey[1] = {0};

std::optional<Tag> compute(std::string_view bytes, std::string_view secret) {
  if (secret.size() > INT_MAX) return std::nullopt;
  const void* key = secret.empty() ? kEmptyKey : static_cast<const void*>(secret.data());
  Tag tag{};
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key, static_cast<int>(secret.size()),
           reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), tag.data(),
           &length) == nullptr ||
      length != kTagBytes) {
    return std::nullopt;
  }
  return tag;
}

}  // namespace

bool append_tag(std::string& message, std::string_view secret) {
  const auto tag = compute(message, secret);
  if (!tag) return false;
  message.append(reinterpret_cast<const char*>(tag->data()), tag->size());
  return true;
}

bool tag_matches(std::string_view signed_bytes, std::string_view tag, std::string_view secret) {
  if (tag.size() != kTagBytes) return false;
  const auto expected = compute(signed_bytes, secret);
  return expected && CRYPTO_memcmp(expected->data(), tag.data(), kTagBytes) == 0;
}

}  // namespace sumcache::protocol
