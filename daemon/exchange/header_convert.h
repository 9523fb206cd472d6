#pragma once
// Between Beast's field containers and the rules' HeaderList (daemon/http).

#include "daemon/http/header_list.h"
#include "daemon/net/asio.h"

namespace sumcache::daemon {

HeaderList to_header_list(const beast::http::fields& fields);

// Only the lines message framing and persistence depend on (Transfer-Encoding,
// Content-Length, Host, Connection; daemon/http/message_framing.h): cheaper
// than the whole list per request.
HeaderList framing_fields(const beast::http::fields& fields);

}  // namespace sumcache::daemon
