#include "daemon/http/uri_error.h"

#include <string>

namespace sumcache::daemon {
namespace {

class UriCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "sumcache.uri"; }

  std::string message(int value) const override {
    switch (static_cast<UriErrc>(value)) {
      case UriErrc::ok:
        return "success";
      case UriErrc::empty:
        return "empty request target or URI";
      case UriErrc::unsupported_form:
        return "request target is neither origin-form nor absolute-form";
      case UriErrc::unsupported_scheme:
        return "URI scheme is not http or https";
      case UriErrc::missing_authority:
        return "http(s) URI has no authority";
      case UriErrc::missing_host:
        return "URI or Host header has an empty host";
      case UriErrc::userinfo:
        return "http(s) URI carries userinfo";
      case UriErrc::invalid_host:
        return "host contains a character not allowed in a host";
      case UriErrc::invalid_port:
        return "port is not a number between 1 and 65535";
      case UriErrc::invalid_character:
        return "path or query contains a control, space or non-ASCII octet";
    }
    return "unknown URI error";
  }
};

}  // namespace

const std::error_category& uri_category() noexcept {
  static const UriCategory category;
  return category;
}

}  // namespace sumcache::daemon
