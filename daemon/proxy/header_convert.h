#pragma once
// Between Beast's field containers and the rules' HeaderList (daemon/http).

#include "daemon/http/header_list.h"
#include "daemon/net/asio.h"

namespace sumcache::daemon {

HeaderList to_header_list(const http::fields& fields);

}  // namespace sumcache::daemon
