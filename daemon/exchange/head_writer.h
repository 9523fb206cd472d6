#pragma once
// Message heads as bytes, and the edits every forwarded head gets: hop-by-hop
// fields removed (RFC 9110 §7.6.1, including those named in Connection) and our
// Via member appended (RFC 9110 §7.6.3).

#include <string>
#include <string_view>

#include "daemon/net/asio.h"

namespace sumcache::daemon {

// "HTTP/1.1 200 OK\r\n" and one "Name: value\r\n" per field; no blank line.
std::string serialize_head(const beast::http::response_header<>& head);
// The field lines only.
std::string serialize_fields(const beast::http::fields& fields);

void strip_hop_by_hop(beast::http::fields& fields);
void append_via(beast::http::fields& fields, std::string_view via);

}  // namespace sumcache::daemon
