#pragma once
// The proxy's own error responses: a status, a short plain-text body saying
// why (as Squid and Varnish do), Via, and X-Cache naming the outcome.

#include <string>
#include <string_view>

#include "daemon/net/asio.h"

namespace sumcache::daemon {

beast::http::response<beast::http::string_body> make_error_response(beast::http::status status,
                                                                    std::string_view reason,
                                                                    bool keep_alive,
                                                                    unsigned version,
                                                                    std::string_view via);

}  // namespace sumcache::daemon
