#pragma once
// How a message crosses between HTTP/2 and the HTTP/1.1 form the rest of the
// proxy works in (RFC 9113 §8.2, §8.3): a response head's text becomes a
// status and lowercase fields without the connection-specific ones; a
// request's pseudo-fields become a target and a Host.

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "daemon/http/header_list.h"

namespace sumcache::daemon {

struct H2ResponseHead {
  unsigned status = 0;
  HeaderList fields;  // names lowercase (RFC 9113 §8.2.1)
};

// `text`: a status line, then field lines, each ending in CRLF (a blank line
// may follow), as the store keeps heads. Connection-specific fields, and the
// fields Connection names, are left out (RFC 9113 §8.2.2). Nullopt: not a head.
std::optional<H2ResponseHead> h2_response_head(std::string_view text);

struct H2Pseudo {
  std::string method;
  std::string scheme;
  std::string authority;
  std::string path;
};

struct H2Target {
  std::string target;  // as an HTTP/1.1 request line would carry it
  std::string host;    // the Host field; "" when the request had no authority
};

// `absolute_form`: the request goes to a forward proxy, whose routing reads
// the origin from an absolute target, as an HTTP/1.1 client would send it.
// A Host field that names another authority than :authority is refused
// (RFC 9113 §8.3.1): the key and the forwarded Host must agree. The string
// alternative says why the request is malformed.
std::variant<H2Target, std::string> h2_target(const H2Pseudo& pseudo,
                                              std::optional<std::string_view> host_field,
                                              bool absolute_form);

}  // namespace sumcache::daemon
