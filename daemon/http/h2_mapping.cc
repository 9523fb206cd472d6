#include "daemon/http/h2_mapping.h"

#include <charconv>

#include "daemon/http/field_value.h"
#include "daemon/http/hop_by_hop.h"

namespace sumcache::daemon {

std::optional<H2ResponseHead> h2_response_head(std::string_view text) {
  const auto line_end = text.find("\r\n");
  if (line_end == std::string_view::npos || line_end < 12 || text.substr(0, 5) != "HTTP/") {
    return std::nullopt;
  }
  H2ResponseHead head;
  const auto [ptr, ec] = std::from_chars(text.data() + 9, text.data() + 12, head.status);
  if (ec != std::errc() || ptr != text.data() + 12 || head.status < 100 || head.status > 999) {
    return std::nullopt;
  }
  HeaderList all;
  std::vector<std::string> named;
  for (std::size_t at = line_end + 2; at < text.size();) {
    const auto end = text.find("\r\n", at);
    if (end == std::string_view::npos) return std::nullopt;
    const std::string_view line = text.substr(at, end - at);
    at = end + 2;
    if (line.empty()) break;
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    HeaderField field{to_lower(line.substr(0, colon)), std::string(trim_ows(line.substr(colon + 1)))};
    if (field.name == "connection") add_connection_options(field.value, named);
    all.push_back(std::move(field));
  }
  for (auto& field : all) {
    if (!is_hop_by_hop(field.name, named)) head.fields.push_back(std::move(field));
  }
  return head;
}

std::variant<H2Target, std::string> h2_target(const H2Pseudo& pseudo,
                                              std::optional<std::string_view> host_field,
                                              bool absolute_form) {
  if (host_field && !pseudo.authority.empty() &&
      to_lower(*host_field) != to_lower(pseudo.authority)) {
    return std::string("Host names another authority than :authority");
  }
  const std::string host =
      pseudo.authority.empty() && host_field ? std::string(*host_field) : pseudo.authority;
  if (pseudo.method == "CONNECT") {
    if (pseudo.authority.empty()) return std::string("CONNECT without :authority");
    return H2Target{pseudo.authority, pseudo.authority};
  }
  if (pseudo.path.empty()) return std::string("no :path");
  if (host.empty()) return std::string("no :authority or Host");
  if (absolute_form && pseudo.path != "*") {
    return H2Target{pseudo.scheme + "://" + host + pseudo.path, host};
  }
  return H2Target{pseudo.path, host};
}

}  // namespace sumcache::daemon
