#pragma once
// Sends a stored response: the stored head, the per-response fields (Age,
// X-Cache, Connection) and the body, as one gather write with no copy of the
// body. Client conditionals become 304 and a single Range a 206 (or 416), as
// RFC 9111 §4.3.2 and RFC 9110 §14 describe.

#include <chrono>
#include <memory>
#include <string>

#include "daemon/cache/cached_meta.h"
#include "daemon/exchange/client_connection.h"
#include "daemon/store/stored_object.h"

namespace sumcache::daemon {

struct HitRequest {
  bool head_method = false;
  unsigned version = 11;
  bool has_conditionals = false;  // If-None-Match or If-Modified-Since present
  bool has_range = false;
  const HeaderList* request = nullptr;  // needed when either of the above is set
  std::chrono::sys_seconds now{};
  std::chrono::milliseconds write_timeout{30000};
  // The tag field to leave out (cache.tag_header, stored as the head's last
  // line: move_field_last); "" sends the stored head whole.
  std::string_view hidden_field{};
};

// Returns the status sent (200, 206, 304 or 416) or 0 when the write failed.
awaitable<unsigned> write_hit(ClientConnection& client, const HitRequest& request,
                              const StoredObject& object, const std::string& body,
                              std::chrono::seconds age, std::string_view x_cache);

}  // namespace sumcache::daemon
