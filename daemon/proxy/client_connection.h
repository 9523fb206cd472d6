#pragma once
// One client connection: its stream (which carries the deadline of every
// read and write), the read buffer that may already hold pipelined requests,
// and who the client is.

#include <string>

#include "daemon/net/asio.h"
#include "daemon/net/cidr.h"

namespace sumcache::daemon {

struct ClientConnection {
  explicit ClientConnection(tcp::socket socket) : stream(std::move(socket)) {}

  beast::tcp_stream stream;
  beast::flat_buffer buffer;
  Ip6Bytes address{};
  std::string address_text;
  bool keep_alive = true;  // false once a response must end the connection
  std::uint64_t bytes_out = 0;
};

}  // namespace sumcache::daemon
