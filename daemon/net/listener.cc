#include "daemon/net/listener.h"

#include <sys/socket.h>

namespace sumcache::daemon {

error_code open_acceptor(tcp::acceptor& acceptor, const tcp::endpoint& endpoint, bool reuse_port,
                         std::string& failed_step) {
  error_code ec;
  acceptor.open(endpoint.protocol(), ec);
  if (ec) return failed_step = "socket", ec;
  acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) return failed_step = "SO_REUSEADDR", ec;
  if (reuse_port) {
    const int one = 1;
    if (::setsockopt(acceptor.native_handle(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
      failed_step = "SO_REUSEPORT";
      return error_code(errno, boost::system::system_category());
    }
  }
  acceptor.bind(endpoint, ec);
  if (ec) return failed_step = "bind", ec;
  acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return failed_step = "listen", ec;
  return {};
}

std::string endpoint_text(const tcp::endpoint& endpoint) {
  const auto& a = endpoint.address();
  const std::string host = a.is_v6() ? "[" + a.to_string() + "]" : a.to_string();
  return host + ":" + std::to_string(endpoint.port());
}

}  // namespace sumcache::daemon
