#pragma once
// Beast messages to the support library's plain structs; internal to it.

#include <boost/beast/http/fields.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include "tests/support/header_list.h"
#include "tests/support/http_client.h"

namespace sumcache::testing {

HeaderList header_list(const boost::beast::http::fields& fields);

ClientResponse to_client_response(
    boost::beast::http::response<boost::beast::http::string_body>&& response);

}  // namespace sumcache::testing
