#include "tests/support/channel_head.h"

#include <chrono>

#include "protocol/channel_auth.h"

namespace sumcache::testing {

std::string channel_auth(const ChannelHeadSpec& spec) {
  const std::int64_t now = std::chrono::duration_cast<std::chrono::seconds>(
                               std::chrono::system_clock::now().time_since_epoch())
                               .count();
  const std::string nonce = spec.nonce.empty() ? fresh_channel_nonce() : spec.nonce;
  return protocol::sign_channel_request(
      spec.method, spec.path, {spec.from, spec.to, spec.time.value_or(now), nonce, spec.length, {}},
      spec.secret);
}

std::string channel_head(const ChannelHeadSpec& spec) {
  std::string head =
      std::string(spec.method) + " " + std::string(spec.path) + " HTTP/1.1\r\nHost: peer\r\n";
  if (spec.method == "POST") {
    head +=
        "Content-Type: application/octet-stream\r\nContent-Length: " + std::to_string(spec.length) +
        "\r\n";
  }
  return head + std::string(protocol::kChannelAuthHeader) + ": " + channel_auth(spec) + "\r\n\r\n";
}

}  // namespace sumcache::testing
