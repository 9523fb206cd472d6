#include "daemon/admin/token_check.h"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <array>
#include <cctype>

namespace sumcache::daemon {
namespace {

using Digest = std::array<unsigned char, SHA256_DIGEST_LENGTH>;

Digest sha256(std::string_view text) {
  Digest d{};
  SHA256(reinterpret_cast<const unsigned char*>(text.data()), text.size(), d.data());
  return d;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

TokenCheck check_bearer_token(std::string_view authorization, std::string_view configured) {
  if (configured.empty()) return TokenCheck::not_configured;
  authorization = trim(authorization);
  const auto space = authorization.find(' ');
  if (space == std::string_view::npos || !iequals(authorization.substr(0, space), "Bearer")) {
    return TokenCheck::missing;
  }
  const std::string_view token = trim(authorization.substr(space + 1));
  if (token.empty()) return TokenCheck::missing;
  const Digest given = sha256(token);
  const Digest expected = sha256(configured);
  return CRYPTO_memcmp(given.data(), expected.data(), given.size()) == 0 ? TokenCheck::ok
                                                                         : TokenCheck::wrong;
}

}  // namespace sumcache::daemon
