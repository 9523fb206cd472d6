#pragma once
// How a client connection ends once its last response (or GOAWAY) is written.

#include "daemon/exchange/client_connection.h"

namespace sumcache::daemon {

// The client may still be sending (a body the proxy refused, frames after
// GOAWAY): closing with unread bytes makes the kernel send RST, which can
// destroy that last response before the client reads it. So the write side
// is shut (on TLS, close_notify) and input is discarded for a short, bounded
// while first, as nginx's lingering_close does.
awaitable<void> close_lingering(ClientConnection& client);

}  // namespace sumcache::daemon
