#include "daemon/exchange/error_response.h"

namespace sumcache::daemon {

beast::http::response<beast::http::string_body> make_error_response(beast::http::status status,
                                                                    std::string_view reason,
                                                                    bool keep_alive,
                                                                    unsigned version,
                                                                    std::string_view via) {
  beast::http::response<beast::http::string_body> res{status, version == 10 ? 10U : 11U};
  res.set(beast::http::field::content_type, "text/plain; charset=utf-8");
  res.set(beast::http::field::cache_control, "no-store");
  res.set(beast::http::field::via, via);
  res.set("X-Cache", "ERROR");
  res.body() = std::to_string(static_cast<unsigned>(status)) + " " +
               std::string(beast::http::obsolete_reason(status)) + ": " + std::string(reason) +
               "\n";
  res.keep_alive(keep_alive);
  // Beast leaves an HTTP/1.0 "close" implicit; say it, as for HTTP/1.1 (RFC 9112 §9.6).
  if (!keep_alive) res.set(beast::http::field::connection, "close");
  res.prepare_payload();
  return res;
}

}  // namespace sumcache::daemon
