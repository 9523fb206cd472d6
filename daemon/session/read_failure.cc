#include "daemon/session/read_failure.h"

namespace sumcache::daemon {

std::optional<std::pair<http::status, std::string>> read_failure(error_code ec) {
  if (ec == http::error::end_of_stream || ec == http::error::partial_message ||
      ec == asio::error::eof || ec == asio::error::connection_reset ||
      ec == asio::error::operation_aborted) {
    return std::nullopt;
  }
  if (ec == beast::error::timeout) {
    return std::pair{http::status::request_timeout, "request head not received in time"};
  }
  if (ec == http::error::header_limit) {
    return std::pair{http::status::request_header_fields_too_large,
                     "request head exceeds limits.max_header_bytes"};
  }
  if (ec == http::error::body_limit) {
    return std::pair{http::status::payload_too_large, "request body exceeds limits.max_body_bytes"};
  }
  if (ec.category() == http::make_error_code(http::error::bad_method).category()) {
    return std::pair{http::status::bad_request, "malformed request: " + ec.message()};
  }
  return std::nullopt;
}

}  // namespace sumcache::daemon
