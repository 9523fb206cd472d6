#pragma once
// One admin connection: HTTP/1.1 with keep-alive, a request read under
// limits.client_request_timeout_ms, the next one awaited under
// limits.client_idle_timeout_ms, heads capped at 16 KiB and bodies at 64 KiB
// (413). Runs on the admin thread.

#include "daemon/admin/admin_context.h"
#include "daemon/net/asio.h"

namespace sumcache::daemon {

awaitable<void> serve_admin_client(AdminContext& context, tcp::socket socket);

}  // namespace sumcache::daemon
