#pragma once
// The two TLS contexts of cluster.tls: the server side (this node's
// certificate and key, TLS 1.2 and later) for the listeners peers connect to,
// and the client side (cluster.tls.ca_file, or the system store) that checks
// a peer's certificate.

#include <boost/asio/ssl.hpp>
#include <string>

#include "config/cluster_config.h"

namespace sumcache::daemon {

// False with `failed` naming the field and file when one cannot be loaded.
bool load_cluster_tls(boost::asio::ssl::context& server, boost::asio::ssl::context& client,
                      const config::ClusterTlsConfig& tls, std::string& failed);

}  // namespace sumcache::daemon
