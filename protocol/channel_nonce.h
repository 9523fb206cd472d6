#pragma once
// A fresh nonce for Sumcache-Channel-Auth (channel_auth.h): 128 bits from
// OpenSSL's CSPRNG as 32 lowercase hex digits. Kept apart from channel_auth,
// which takes its nonce from the caller so that it stays deterministic.

#include <string>

namespace sumcache::protocol {

// Empty when the CSPRNG fails: the caller sends nothing rather than a guessable nonce.
std::string fresh_channel_nonce();

}  // namespace sumcache::protocol
