#include "daemon/exchange/head_writer.h"

#include <vector>

#include "daemon/http/hop_by_hop.h"

namespace sumcache::daemon {

std::string serialize_fields(const beast::http::fields& fields) {
  std::string out;
  for (const auto& f : fields) {
    out.append(f.name_string());
    out.append(": ");
    out.append(f.value());
    out.append("\r\n");
  }
  return out;
}

std::string serialize_head(const beast::http::response_header<>& head) {
  std::string out = head.version() == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  out += std::to_string(head.result_int());
  out += ' ';
  const auto reason = head.reason();
  out.append(reason.empty() ? beast::http::obsolete_reason(head.result()) : reason);
  out += "\r\n";
  out += serialize_fields(head);
  return out;
}

void strip_hop_by_hop(beast::http::fields& fields) {
  std::vector<std::string> named;
  for (const auto& f : fields) {
    if (f.name() == beast::http::field::connection) add_connection_options(f.value(), named);
  }
  for (auto it = fields.begin(); it != fields.end();) {
    it = is_hop_by_hop(it->name_string(), named) ? fields.erase(it) : std::next(it);
  }
}

void append_via(beast::http::fields& fields, std::string_view via) {
  fields.set(beast::http::field::via, via_appended(fields[beast::http::field::via], via));
}

}  // namespace sumcache::daemon
