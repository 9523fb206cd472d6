#include "daemon/peer/cluster_tls.h"

namespace sumcache::daemon {

bool load_cluster_tls(boost::asio::ssl::context& server, boost::asio::ssl::context& client,
                      const config::ClusterTlsConfig& t, std::string& failed) {
  namespace ssl = boost::asio::ssl;
  boost::system::error_code ec;
  const auto step = [&](const char* field, const std::filesystem::path& file) {
    if (ec)
      failed = std::string("cluster.tls.") + field + " " + file.string() + ": " + ec.message();
    return !ec;
  };
  server.set_options(ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
  server.use_certificate_chain_file(t.cert_file.string(), ec);
  if (!step("cert_file", t.cert_file)) return false;
  server.use_private_key_file(t.key_file.string(), ssl::context::pem, ec);
  if (!step("key_file", t.key_file)) return false;
  if (t.ca_file.empty()) {
    client.set_default_verify_paths(ec);
  } else {
    client.load_verify_file(t.ca_file.string(), ec);
  }
  if (!step("ca_file", t.ca_file)) return false;
  client.set_verify_mode(ssl::verify_peer);
  return true;
}

}  // namespace sumcache::daemon
