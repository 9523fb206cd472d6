#include "daemon/exchange/head_writer.h"

#include <vector>

#include "daemon/http/field_value.h"
#include "daemon/http/hop_by_hop.h"

namespace sumcache::daemon {

std::string serialize_fields(const http::fields& fields) {
  std::string out;
  for (const auto& f : fields) {
    out.append(f.name_string());
    out.append(": ");
    out.append(f.value());
    out.append("\r\n");
  }
  return out;
}

std::string serialize_head(const http::response_header<>& head) {
  std::string out = head.version() == 10 ? "HTTP/1.0 " : "HTTP/1.1 ";
  out += std::to_string(head.result_int());
  out += ' ';
  const auto reason = head.reason();
  out.append(reason.empty() ? http::obsolete_reason(head.result()) : reason);
  out += "\r\n";
  out += serialize_fields(head);
  return out;
}

void strip_hop_by_hop(http::fields& fields) {
  std::vector<std::string> named;
  for (const auto& f : fields) {
    if (beast::iequals(f.name_string(), "connection")) {
      for (auto token : split_list(f.value())) named.emplace_back(token);
    }
  }
  for (auto it = fields.begin(); it != fields.end();) {
    bool drop = is_hop_by_hop(it->name_string());
    for (const auto& n : named) drop = drop || beast::iequals(it->name_string(), n);
    it = drop ? fields.erase(it) : std::next(it);
  }
}

void append_via(http::fields& fields, std::string_view via) {
  const auto existing = fields[http::field::via];
  if (existing.empty()) {
    fields.set(http::field::via, via);
  } else {
    fields.set(http::field::via, std::string(existing) + ", " + std::string(via));
  }
}

}  // namespace sumcache::daemon
