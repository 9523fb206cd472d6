#include "daemon/session/read_failure.h"

namespace sumcache::daemon {

std::optional<std::pair<beast::http::status, std::string>> read_failure(error_code ec) {
  if (ec == beast::http::error::end_of_stream || ec == beast::http::error::partial_message ||
      ec == asio::error::eof || ec == asio::error::connection_reset ||
      ec == asio::error::operation_aborted) {
    return std::nullopt;
  }
  if (ec == beast::error::timeout) {
    return std::pair{beast::http::status::request_timeout, "request head not received in time"};
  }
  if (ec == beast::http::error::header_limit) {
    return std::pair{beast::http::status::request_header_fields_too_large,
                     "request head exceeds limits.max_header_bytes"};
  }
  if (ec == beast::http::error::body_limit) {
    return std::pair{beast::http::status::payload_too_large,
                     "request body exceeds limits.max_body_bytes"};
  }
  if (ec.category() == beast::http::make_error_code(beast::http::error::bad_method).category()) {
    return std::pair{beast::http::status::bad_request, "malformed request: " + ec.message()};
  }
  return std::nullopt;
}

}  // namespace sumcache::daemon
