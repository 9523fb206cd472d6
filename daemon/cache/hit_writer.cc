#include "daemon/cache/hit_writer.h"

#include <algorithm>
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

void replace_field(HeaderList& fields, std::string_view name, std::string value) {
  remove_field(fields, name);
  fields.push_back({std::string(name), std::move(value)});
}

}  // namespace

PerResponseFields::PerResponseFields(const HitRequest& request, bool keep_alive,
                                     std::chrono::seconds age, std::string_view x_cache) {
  append("Age: ");
  size_ = static_cast<std::size_t>(
      std::to_chars(text_.data() + size_, text_.data() + text_.size(), age.count()).ptr -
      text_.data());
  append("\r\nX-Cache: ");
  append(x_cache.substr(0, kMaxXCache));
  append("\r\n");
  if (!keep_alive) {
    append("Connection: close\r\n");
  } else if (request.version == 10) {
    append("Connection: keep-alive\r\n");
  }
  append("\r\n");
}

void PerResponseFields::append(std::string_view s) {
  std::copy(s.begin(), s.end(), text_.data() + size_);
  size_ += s.size();
}

std::string_view HitPlan::head(const StoredObject& object, const HitRequest& request) const {
  if (!built_head.empty()) return built_head;
  std::string_view head = object.head;
  head.remove_suffix(trailing_field_bytes(head, request.hidden_field));
  return head;
}

HitPlan plan_hit(const HitRequest& request, const StoredObject& object, std::uint64_t body_size) {
  HitPlan plan;
  const std::string_view method = request.head_method ? "HEAD" : "GET";
  const int stored_status = head_status(object.head);
  if (request.has_conditionals && preconditions_apply(stored_status) &&
      evaluate_conditional(method, *request.request, parse_stored_head(object.head).fields,
                           request.now) == ConditionalOutcome::send_not_modified) {
    StoredHead stored = parse_stored_head(object.head);
    if (!request.hidden_field.empty()) remove_field(stored.fields, request.hidden_field);
    plan.status = 304;
    plan.built_head = build_head("HTTP/1.1 304 Not Modified", not_modified_fields(stored.fields));
    return plan;
  }
  if (request.has_range && !request.head_method && ranges_apply(stored_status)) {
    StoredHead stored = parse_stored_head(object.head);
    if (!request.hidden_field.empty()) remove_field(stored.fields, request.hidden_field);
    const RangeDecision range =
        decide_range(method, *request.request, stored.fields, body_size, request.now);
    if (range.outcome == RangeOutcome::partial) {
      const std::uint64_t length = range.range.last - range.range.first + 1;
      replace_field(stored.fields, "Content-Length", std::to_string(length));
      replace_field(stored.fields, "Content-Range", range.content_range);
      plan.status = 206;
      plan.built_head = build_head("HTTP/1.1 206 Partial Content", stored.fields);
      plan.first = range.range.first;
      plan.length = length;
      return plan;
    }
    if (range.outcome == RangeOutcome::not_satisfiable) {
      replace_field(stored.fields, "Content-Length", "0");
      replace_field(stored.fields, "Content-Range", range.content_range);
      plan.status = 416;
      plan.built_head = build_head("HTTP/1.1 416 Range Not Satisfiable", stored.fields);
      return plan;
    }
  }
  plan.status = static_cast<unsigned>(stored_status);
  plan.length = request.head_method ? 0 : body_size;
  return plan;
}

awaitable<unsigned> write_hit(ClientExchange& client, const HitRequest& request,
                              const StoredObject& object, const std::string& body,
                              std::chrono::seconds age, std::string_view x_cache) {
  const PerResponseFields fields(request, client.keep_alive, age, x_cache);
  const HitPlan plan = plan_hit(request, object, body.size());
  const std::string_view payload = std::string_view(body).substr(
      static_cast<std::size_t>(plan.first), static_cast<std::size_t>(plan.length));
  auto [ec, n] = co_await client.write_response(plan.head(object, request), fields.view(),
                                                asio::buffer(payload), {});
  co_return ec ? 0U : plan.status;
}

awaitable<unsigned> write_built_hit(ClientExchange& client, const HitRequest& request,
                                    unsigned status, std::string head, std::string_view body,
                                    std::chrono::seconds age, std::string_view x_cache) {
  const PerResponseFields fields(request, client.keep_alive, age, x_cache);
  auto [ec, n] = co_await client.write_response(head, fields.view(), asio::buffer(body), {});
  co_return ec ? 0U : status;
}

}  // namespace sumcache::daemon
