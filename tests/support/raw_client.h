#pragma once
// Raw exchanges for tests of malformed and unusual requests: garbage, oversized
// headers, both Content-Length and Transfer-Encoding, bad chunk sizes, several
// requests pipelined in one write. No HTTP on the way out, no parsing on the
// way back unless asked for.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "filters/result.h"
#include "tests/support/http_client.h"

namespace sumcache::testing {

struct RawReply {
  std::string data;          // every byte the server sent
  bool peer_closed = false;  // the server closed (or reset); false: `timeout` ended the read
};

// Connects to host:port, writes `bytes` in one write, then reads until the server closes the
// connection or `timeout` (counted from the call) passes. Fails only when the connection or
// the write fails.
Result<RawReply> raw_exchange(const std::string& host, std::uint16_t port, std::string_view bytes,
                              std::chrono::milliseconds timeout);

// Splits `data` into the responses it holds back to back, as after pipelined requests;
// stops at the first that is incomplete or malformed. Not for responses to HEAD, whose
// Content-Length announces a body that is not there.
std::vector<ClientResponse> parse_responses(std::string_view data);

}  // namespace sumcache::testing
