#pragma once
// One client connection: its stream (which carries the deadline of every
// read and write), the read buffer that may already hold pipelined requests,
// and who the client is.

#include <boost/intrusive/list.hpp>
#include <memory>
#include <string>

#include "daemon/exchange/client_stream.h"
#include "daemon/net/asio.h"
#include "daemon/net/cidr.h"

namespace sumcache::daemon {

// The hook puts a connection in its worker's idle list with no allocation,
// and takes it out when the connection is destroyed.
using IdleHook =
    boost::intrusive::list_base_hook<boost::intrusive::link_mode<boost::intrusive::auto_unlink>>;

struct ClientConnection : IdleHook {
  explicit ClientConnection(ClientStream s) : stream(std::move(s)) {}

  ClientStream stream;
  beast::flat_buffer buffer;
  Ip6Bytes address{};
  std::string address_text;
  bool keep_alive = true;  // false once a response must end the connection
  // On a TLS listener: the certificates the handshake began with, whose
  // OpenSSL callbacks must outlive the connection across a reload.
  std::shared_ptr<const void> tls_hold;
};

using IdleConnections =
    boost::intrusive::list<ClientConnection, boost::intrusive::constant_time_size<false>>;

}  // namespace sumcache::daemon
