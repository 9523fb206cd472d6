#include "tools/sumcachectl/ctl_error.h"

#include <string>

namespace sumcache::tools {
namespace {

class CtlCategory : public std::error_category {
 public:
  const char* name() const noexcept override { return "sumcachectl"; }
  std::string message(int code) const override {
    switch (static_cast<CtlErrc>(code)) {
      case CtlErrc::ok:
        return "ok";
      case CtlErrc::incomplete_response:
        return "response ended early";
      case CtlErrc::malformed_response:
        return "malformed HTTP response";
      case CtlErrc::response_too_large:
        return "response too large";
      case CtlErrc::token_file_unusable:
        return "token file missing, empty or too large";
      case CtlErrc::not_an_ip_literal:
        return "admin address must be an IP literal or localhost";
      case CtlErrc::cacert_unusable:
        return "cannot load CA certificates to verify the admin with (--cacert)";
      case CtlErrc::tls_failed:
        return "TLS failed (does the admin listener have admin.tls?)";
      case CtlErrc::certificate_untrusted:
        return "admin certificate not trusted (is its CA the one in --cacert?)";
      case CtlErrc::certificate_name_mismatch:
        return "admin certificate does not name the host in --admin";
    }
    return "unknown sumcachectl error";
  }
};

}  // namespace

const std::error_category& ctl_category() noexcept {
  static const CtlCategory category;
  return category;
}

}  // namespace sumcache::tools
