#include "tests/support/beast_convert.h"

namespace sumcache::testing {

HeaderList header_list(const boost::beast::http::fields& fields) {
  HeaderList headers;
  for (const auto& field : fields) {
    headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  return headers;
}

ClientResponse to_client_response(
    boost::beast::http::response<boost::beast::http::string_body>&& response) {
  ClientResponse out;
  out.status = response.result_int();
  out.reason = std::string(response.reason());
  out.headers = header_list(response.base());
  out.keep_alive = response.keep_alive();
  out.body = std::move(response.body());
  return out;
}

}  // namespace sumcache::testing
