#include "daemon/cache/hit_writer.h"

#include <array>
#include <charconv>

#include "daemon/cache/stored_head.h"
#include "daemon/http/range.h"
#include "daemon/http/validation.h"

namespace sumcache::daemon {
namespace {

int head_status(std::string_view head) {
  int status = 0;
  if (head.size() >= 12) std::from_chars(head.data() + 9, head.data() + 12, status);
  return status;
}

std::string per_response_fields(const HitRequest& request, const ClientConnection& client,
                                std::chrono::seconds age, std::string_view x_cache) {
  std::string out = "Age: " + std::to_string(age.count()) + "\r\nX-Cache: ";
  out.append(x_cache).append("\r\n");
  if (!client.keep_alive) {
    out += "Connection: close\r\n";
  } else if (request.version == 10) {
    out += "Connection: keep-alive\r\n";
  }
  out += "\r\n";
  return out;
}

awaitable<bool> send(ClientConnection& client, const HitRequest& request, std::string_view head,
                     std::string_view extra, std::string_view body) {
  const std::array<asio::const_buffer, 3> buffers{asio::buffer(head), asio::buffer(extra),
                                                  asio::buffer(body)};
  client.stream.expires_after(request.write_timeout);
  auto [ec, n] = co_await asio::async_write(client.stream, buffers, transfer_all_at_once, use_nothrow);
  client.bytes_out += n;
  if (ec) client.keep_alive = false;
  co_return !ec;
}

void replace_field(HeaderList& fields, std::string_view name, std::string value) {
  remove_field(fields, name);
  fields.push_back({std::string(name), std::move(value)});
}

}  // namespace

awaitable<unsigned> write_hit(ClientConnection& client, const HitRequest& request,
                              const StoredObject& object, const std::string& body,
                              std::chrono::seconds age, std::string_view x_cache) {
  const std::string extra = per_response_fields(request, client, age, x_cache);
  const std::string_view method = request.head_method ? "HEAD" : "GET";
  const std::string_view no_body;
  if (request.has_conditionals &&
      evaluate_conditional(method, *request.request, parse_stored_head(object.head).fields,
                           request.now) == ConditionalOutcome::send_not_modified) {
    const StoredHead stored = parse_stored_head(object.head);
    const std::string head = build_head("HTTP/1.1 304 Not Modified", not_modified_fields(stored.fields));
    co_return co_await send(client, request, head, extra, no_body) ? 304U : 0U;
  }
  if (request.has_range && !request.head_method) {
    StoredHead stored = parse_stored_head(object.head);
    const RangeDecision range =
        decide_range(method, *request.request, stored.fields, body.size(), request.now);
    if (range.outcome == RangeOutcome::partial) {
      const std::uint64_t length = range.range.last - range.range.first + 1;
      replace_field(stored.fields, "Content-Length", std::to_string(length));
      replace_field(stored.fields, "Content-Range", range.content_range);
      const std::string head = build_head("HTTP/1.1 206 Partial Content", stored.fields);
      const std::string_view slice = std::string_view(body).substr(range.range.first, length);
      co_return co_await send(client, request, head, extra, slice) ? 206U : 0U;
    }
    if (range.outcome == RangeOutcome::not_satisfiable) {
      replace_field(stored.fields, "Content-Length", "0");
      replace_field(stored.fields, "Content-Range", range.content_range);
      const std::string head = build_head("HTTP/1.1 416 Range Not Satisfiable", stored.fields);
      co_return co_await send(client, request, head, extra, no_body) ? 416U : 0U;
    }
  }
  const std::string_view payload = request.head_method ? no_body : std::string_view(body);
  const bool ok = co_await send(client, request, object.head, extra, payload);
  co_return ok ? static_cast<unsigned>(head_status(object.head)) : 0U;
}

}  // namespace sumcache::daemon
