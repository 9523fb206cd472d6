#include "tools/sumcachectl/http_reply.h"

#include <algorithm>
#include <charconv>
#include <optional>

#include "tools/sumcachectl/ctl_error.h"

namespace sumcache::tools {
namespace {

struct Head {
  unsigned status = 0;
  std::string content_type;
  std::optional<std::size_t> content_length;
  bool chunked = false;
};

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return (x | 0x20) == (y | 0x20);
         });
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::optional<Head> parse_head(std::string_view head) {
  const auto line_end = head.find("\r\n");
  const std::string_view status_line = head.substr(0, line_end);
  // "HTTP/1.x SSS reason" (RFC 9112 §4)
  if (status_line.size() < 12 || !status_line.starts_with("HTTP/1.") || status_line[8] != ' ') {
    return std::nullopt;
  }
  Head h;
  const char* digits = status_line.data() + 9;
  auto [end, ec] = std::from_chars(digits, digits + 3, h.status);
  if (ec != std::errc{} || end != digits + 3 || h.status < 100 || h.status > 599)
    return std::nullopt;
  std::string_view rest = line_end == std::string_view::npos ? "" : head.substr(line_end + 2);
  while (!rest.empty()) {
    const auto eol = rest.find("\r\n");
    const std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? "" : rest.substr(eol + 2);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) return std::nullopt;
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = trim(line.substr(colon + 1));
    if (iequals(name, "content-type")) h.content_type = std::string(value);
    if (iequals(name, "transfer-encoding")) h.chunked = iequals(value, "chunked");
    if (iequals(name, "content-length")) {
      std::size_t length = 0;
      auto [p, e] = std::from_chars(value.data(), value.data() + value.size(), length);
      if (e != std::errc{} || p != value.data() + value.size()) return std::nullopt;
      h.content_length = length;
    }
  }
  return h;
}

// Decodes a chunked body (RFC 9112 §7.1); extensions and trailers are skipped.
Result<std::string> decode_chunked(std::string_view in) {
  std::string out;
  for (;;) {
    const auto eol = in.find("\r\n");
    if (eol == std::string_view::npos) return make_error_code(CtlErrc::incomplete_response);
    std::string_view size_text = in.substr(0, eol);
    size_text = size_text.substr(0, size_text.find(';'));
    std::size_t size = 0;
    auto [p, e] = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size, 16);
    if (e != std::errc{} || size_text.empty()) return make_error_code(CtlErrc::malformed_response);
    if (size > kMaxReplyBodyBytes - out.size()) return make_error_code(CtlErrc::response_too_large);
    in.remove_prefix(eol + 2);
    if (size == 0) {
      // Trailer fields, then the empty line that ends the message.
      if (in.starts_with("\r\n") || in.find("\r\n\r\n") != std::string_view::npos) return out;
      return make_error_code(CtlErrc::incomplete_response);
    }
    if (in.size() < size + 2) return make_error_code(CtlErrc::incomplete_response);
    if (in.substr(size, 2) != "\r\n") return make_error_code(CtlErrc::malformed_response);
    out.append(in.substr(0, size));
    in.remove_prefix(size + 2);
  }
}

}  // namespace

Result<HttpReply> parse_http_reply(std::string_view raw, bool at_eof) {
  for (;;) {
    const auto head_end = raw.find("\r\n\r\n");
    if (head_end == std::string_view::npos) {
      if (raw.size() > kMaxReplyHeadBytes) return make_error_code(CtlErrc::response_too_large);
      return make_error_code(CtlErrc::incomplete_response);
    }
    if (head_end > kMaxReplyHeadBytes) return make_error_code(CtlErrc::response_too_large);
    auto head = parse_head(raw.substr(0, head_end));
    if (!head) return make_error_code(CtlErrc::malformed_response);
    raw.remove_prefix(head_end + 4);
    if (head->status < 200) continue;  // an interim response: the final one follows
    HttpReply reply{head->status, std::move(head->content_type), {}};
    if (head->status == 204 || head->status == 304) return reply;
    if (head->chunked) {
      auto body = decode_chunked(raw);
      if (!body) return body.error();
      reply.body = std::move(body).value();
    } else if (head->content_length) {
      if (*head->content_length > kMaxReplyBodyBytes) {
        return make_error_code(CtlErrc::response_too_large);
      }
      if (raw.size() < *head->content_length) return make_error_code(CtlErrc::incomplete_response);
      reply.body = std::string(raw.substr(0, *head->content_length));
    } else {
      if (raw.size() > kMaxReplyBodyBytes) return make_error_code(CtlErrc::response_too_large);
      if (!at_eof) return make_error_code(CtlErrc::incomplete_response);
      reply.body = std::string(raw);
    }
    return reply;
  }
}

}  // namespace sumcache::tools
