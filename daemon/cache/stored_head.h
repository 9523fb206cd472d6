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

// The tag field (cache.tag_header) is stored as the head's last line, every
// line of it joined into one, so that a hit leaves it out for clients by
// sending a shorter head (docs/store.md, "Tag index"). "" name: no change.
void move_field_last(HeaderList& fields, std::string_view name);
// The bytes of head's last line ("Name: value\r\n") when it is a `name`
// field, else 0.
std::size_t trailing_field_bytes(std::string_view head, std::string_view name);

}  // namespace sumcache::daemon
