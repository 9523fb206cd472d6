#pragma once
// The summary message's authentication tag: HMAC-SHA256 keyed with the
// cluster secret over every byte before the tag (RFC 2104; docs/protocol.md).

#include <string>
#include <string_view>

namespace sumcache::protocol {

// Appends the tag over all of `message`; false (nothing appended) if libcrypto
// fails or the secret is longer than HMAC's int length.
bool append_tag(std::string& message, std::string_view secret);
// Whether `tag` is the 32-byte tag of `signed_bytes`; compared in constant time.
bool tag_matches(std::string_view signed_bytes, std::string_view tag, std::string_view secret);

}  // namespace sumcache::protocol
