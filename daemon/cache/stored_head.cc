#include "daemon/cache/stored_head.h"

#include <cctype>

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

void move_field_last(HeaderList& fields, std::string_view name) {
  if (name.empty()) return;
  auto value = joined_value(fields, name);
  if (!value) return;
  remove_field(fields, name);
  fields.push_back({std::string(name), std::move(*value)});
}

std::size_t trailing_field_bytes(std::string_view head, std::string_view name) {
  if (name.empty() || head.size() < 4 || !head.ends_with("\r\n")) return 0;
  const std::size_t end = head.rfind("\r\n", head.size() - 3);
  if (end == std::string_view::npos) return 0;  // the status line alone
  const std::string_view line = head.substr(end + 2);
  if (line.size() <= name.size() || line[name.size()] != ':') return 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const auto a = static_cast<unsigned char>(line[i]);
    const auto b = static_cast<unsigned char>(name[i]);
    if (std::tolower(a) != std::tolower(b)) return 0;
  }
  return line.size();
}

std::string status_line(int status, std::string_view reason) {
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason);
}

}  // namespace sumcache::daemon
