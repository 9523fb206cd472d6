#include "daemon/cache/stored_head.h"

#include "daemon/http/field_value.h"

namespace sumcache::daemon {

StoredHead parse_stored_head(std::string_view head) {
  StoredHead out;
  std::size_t pos = head.find("\r\n");
  out.status_line = std::string(head.substr(0, pos));
  while (pos != std::string_view::npos && pos + 2 < head.size()) {
    const std::size_t start = pos + 2;
    pos = head.find("\r\n", start);
    const std::string_view line = head.substr(start, pos - start);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    out.fields.push_back(
        {std::string(line.substr(0, colon)), std::string(trim_ows(line.substr(colon + 1)))});
  }
  return out;
}

std::string build_head(std::string_view status_line, const HeaderList& fields) {
  std::string out(status_line);
  out += "\r\n";
  for (const auto& f : fields) {
    out.append(f.name).append(": ").append(f.value).append("\r\n");
  }
  return out;
}

std::string status_line(int status, std::string_view reason) {
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason);
}

}  // namespace sumcache::daemon
