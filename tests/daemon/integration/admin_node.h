#pragma once
// A real sumcached with its admin listener on, in front of a real test origin,
// for the tests of what talks to the admin endpoint: the dashboard in a browser
// and sumcachectl.

#include <cstdint>
#include <memory>
#include <string>

#include "filters/result.h"
#include "tests/support/daemon_process.h"
#include "tests/support/http_client.h"
#include "tests/support/test_origin.h"

namespace sumcache::testing {

struct AdminNodeOptions {
  std::string token{};           // admin.token; "" = none
  std::string extra_json{};      // more top-level fields, each followed by a comma
  std::string admin_tls_json{};  // admin.tls, with absolute paths; empty: plain HTTP
};

class AdminNode {
 public:
  // Starts the origin and a forward-mode sumcached; false (with the daemon's log in
  // `failure`) when either does not come up.
  bool start(const AdminNodeOptions& options = {});

  // GET through the proxy (absolute-form) on a connection of its own.
  Result<ClientResponse> fetch(const std::string& path);
  // A request to the admin endpoint.
  Result<ClientResponse> admin(const std::string& target, const std::string& method = "GET",
                               const std::string& body = "", HeaderList headers = {});

  std::string origin_url(const std::string& path) const;
  std::uint16_t admin_port() const { return admin_port_; }
  std::string daemon_log() const { return daemon_ ? daemon_->output(Output::err) : ""; }

  std::string failure;

 private:
  TestOrigin origin_;
  std::unique_ptr<DaemonProcess> daemon_;
  std::uint16_t proxy_port_ = 0;
  std::uint16_t admin_port_ = 0;
};

}  // namespace sumcache::testing
