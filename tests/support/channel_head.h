#pragma once
// Sumcache-Channel-Auth for tests that speak to a node's peer listener by
// hand (docs/protocol.md, "Channel authentication"): the value a peer would
// send, with the nonce and time a test may choose in order to replay or age it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/channel_nonce.h"

namespace sumcache::testing {

using protocol::fresh_channel_nonce;

struct ChannelHeadSpec {
  std::string_view method = "POST";
  std::string_view path = "/sumcache/v1/summary";
  std::string_view from = "node-b";
  std::string_view to = "node-a";
  std::uint64_t length = 0;  // the Content-Length it will carry
  std::string_view secret{};
  std::optional<std::int64_t> time{};  // Unix seconds; now when unset
  std::string nonce{};                 // fresh when empty
};

// The header's value; empty when the spec breaks the grammar.
std::string channel_auth(const ChannelHeadSpec& spec);

// A full request head (request line, Host, Content-Type, Content-Length and
// the header from `spec`, then the blank line) for a raw socket.
std::string channel_head(const ChannelHeadSpec& spec);

}  // namespace sumcache::testing
