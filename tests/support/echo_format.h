#pragma once
// The body of the test origin's /echo response: the request it received, as
// JSON, so a test sees what the proxy forwarded (method, target, every header
// in order, the body).
//
//   {"method":"POST","target":"/echo?x=1","version":"HTTP/1.1",
//    "headers":[["Host","127.0.0.1:4567"],["Via","1.1 sumcache"]],
//    "body_length":5,"body":"hello"}
//
// Body bytes are written as Latin-1 code points (\u00XX for anything not
// printable ASCII), so any bytes survive the trip and parse_echo returns them.

#include <string>
#include <string_view>

#include "filters/result.h"
#include "tests/support/header_list.h"

namespace sumcache::testing {

struct EchoedRequest {
  std::string method;
  std::string target;
  std::string version;
  HeaderList headers;
  std::string body;
};

std::string format_echo(const EchoedRequest& request);

// Fails with std::errc::bad_message when `json` is not what format_echo writes.
Result<EchoedRequest> parse_echo(std::string_view json);

}  // namespace sumcache::testing
