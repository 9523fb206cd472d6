#include "daemon/exchange/client_exchange.h"

#include "daemon/exchange/head_writer.h"

namespace sumcache::daemon {

awaitable<Written> write_message(ClientExchange& client,
                                 const beast::http::response<beast::http::string_body>& res) {
  const std::string head = serialize_head(res.base());
  co_return co_await client.write_response(head, "\r\n", asio::buffer(res.body()), {});
}

}  // namespace sumcache::daemon
