#pragma once
// A stored response head ("HTTP/1.1 200 OK\r\nName: value\r\n...", no blank
// line) and its fields as the rules see them; only the rarer paths (client
// conditionals, ranges, revalidation) parse it; a plain hit sends it as is.

#include <string>
#include <string_view>

#include "daemon/http/header_list.h"

namespace sumcache::daemon {

struct StoredHead {
  std::string status_line;  // without CRLF
  HeaderList fields;
};

StoredHead parse_stored_head(std::string_view head);
std::string build_head(std::string_view status_line, const HeaderList& fields);
std::string status_line(int status, std::string_view reason);

}  // namespace sumcache::daemon
