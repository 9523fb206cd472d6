#pragma once
// Bearer tokens for the admin paths that change state (RFC 6750 §2.1:
// "Authorization: Bearer <token>"; the scheme name is case-insensitive,
// RFC 9110 §11.1).

#include <string_view>

namespace sumcache::daemon {

enum class TokenCheck {
  ok,
  not_configured,  // no admin.token: state-changing paths are closed (403)
  missing,         // no Bearer credentials (401)
  wrong,           // credentials that do not match (401)
};

// The comparison takes the same time whatever the tokens hold and however
// long they are: both are hashed (SHA-256) and the digests compared with
// CRYPTO_memcmp, so neither a prefix nor the length leaks through timing.
TokenCheck check_bearer_token(std::string_view authorization, std::string_view configured);

}  // namespace sumcache::daemon
