#pragma once
// Sends a stored response: the stored head, the per-response fields (Age,
// X-Cache, Connection) and the body, as one gather write with no copy of the
// body. Client conditionals become 304 and a single Range a 206 (or 416), as
// RFC 9111 §4.3.2 and RFC 9110 §14 describe.

#include <array>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <tuple>

#include "daemon/cache/cached_meta.h"
#include "daemon/exchange/client_exchange.h"
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

// What a hit sends: its status, its head, and which body bytes.
struct HitPlan {
  unsigned status = 200;
  std::string built_head;  // 304, 206 and 416 build their head; "": the stored one
  std::uint64_t first = 0;
  std::uint64_t length = 0;  // body bytes from `first`; 0 for HEAD, 304 and 416
  std::string_view head(const StoredObject& object, const HitRequest& request) const;
};
HitPlan plan_hit(const HitRequest& request, const StoredObject& object, std::uint64_t body_size);

// Age, X-Cache and Connection: the fields that differ per response, built
// on the stack (every hit sends them).
class PerResponseFields {
 public:
  PerResponseFields(const HitRequest& request, bool keep_alive, std::chrono::seconds age,
                    std::string_view x_cache);
  std::string_view view() const { return {text_.data(), size_}; }

 private:
  static constexpr std::size_t kMaxXCache = 32;  // the longest X-Cache value is far shorter
  void append(std::string_view s);
  std::array<char, 128> text_;
  std::size_t size_ = 0;
};

// Returns the status sent (200, 206, 304 or 416) or 0 when the write failed.
awaitable<unsigned> write_hit(ClientExchange& client, const HitRequest& request,
                              const StoredObject& object, const std::string& body,
                              std::chrono::seconds age, std::string_view x_cache);

// A hit whose head the caller built (a 206 from a stored partial response,
// partial_table.h) with these body bytes. Returns `status`, or 0 when the
// write failed.
awaitable<unsigned> write_built_hit(ClientExchange& client, const HitRequest& request,
                                    unsigned status, std::string head, std::string_view body,
                                    std::chrono::seconds age, std::string_view x_cache);

}  // namespace sumcache::daemon
