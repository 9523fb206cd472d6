#include "daemon/http/message_framing.h"

#include <optional>
#include <string>
#include <vector>

#include "daemon/http/cache_key.h"
#include "daemon/http/field_value.h"

namespace sumcache::daemon {
namespace {

class FramingCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "sumcache.framing"; }

  std::string message(int value) const override {
    switch (static_cast<FramingErrc>(value)) {
      case FramingErrc::ok:
        return "success";
      case FramingErrc::unsupported_version:
        return "HTTP major version is not 1";
      case FramingErrc::transfer_encoding_in_http10:
        return "Transfer-Encoding in an HTTP/1.0 message";
      case FramingErrc::empty_transfer_encoding:
        return "empty Transfer-Encoding";
      case FramingErrc::invalid_transfer_encoding:
        return "Transfer-Encoding is not a list of transfer codings";
      case FramingErrc::chunked_repeated:
        return "Transfer-Encoding applies chunked more than once";
      case FramingErrc::chunked_not_final:
        return "Transfer-Encoding does not end in chunked";
      case FramingErrc::unsupported_transfer_coding:
        return "Transfer-Encoding has a coding other than chunked";
      case FramingErrc::transfer_encoding_and_content_length:
        return "both Transfer-Encoding and Content-Length";
      case FramingErrc::invalid_content_length:
        return "Content-Length is not a decimal number";
      case FramingErrc::multiple_content_length:
        return "more than one Content-Length";
      case FramingErrc::differing_content_length:
        return "Content-Length values differ";
      case FramingErrc::missing_host:
        return "HTTP/1.1 request without Host";
      case FramingErrc::multiple_host:
        return "more than one Host";
      case FramingErrc::invalid_host:
        return "Host is not a host and optional port";
      case FramingErrc::line_too_long:
        return "a chunk line or trailer section longer than the proxy holds";
      case FramingErrc::too_many_interim:
        return "more than " + std::to_string(kMaxInterimResponses) +
               " interim (1xx) responses before the final one";
    }
    return "unknown framing error";
  }
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_ows(char c) { return c == ' ' || c == '\t'; }

// tchar (RFC 9110 §5.6.2).
bool is_tchar(char c) {
  return is_alpha(c) || is_digit(c) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

// A cursor over one field value, for the transfer-coding grammar.
class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}
  bool done() const { return pos_ == text_.size(); }
  char peek() const { return done() ? '\0' : text_[pos_]; }
  bool eat(char c) {
    if (peek() != c || done()) return false;
    ++pos_;
    return true;
  }
  void skip_ows() {
    while (!done() && is_ows(text_[pos_])) ++pos_;
  }
  std::string_view token() {
    const std::size_t start = pos_;
    while (!done() && is_tchar(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  // quoted-string (RFC 9110 §5.6.4): qdtext is HTAB, SP, VCHAR but '"' and
  // '\', or obs-text; quoted-pair is '\' followed by HTAB, SP, VCHAR or obs-text.
  bool quoted_string() {
    if (!eat('"')) return false;
    while (!done()) {
      const auto c = static_cast<unsigned char>(text_[pos_++]);
      if (c == '"') return true;
      if (c == '\\') {
        if (done()) return false;
        const auto next = static_cast<unsigned char>(text_[pos_++]);
        if (next < 0x20 && next != '\t') return false;
        if (next == 0x7f) return false;
      } else if ((c < 0x20 && c != '\t') || c == 0x7f) {
        return false;
      }
    }
    return false;
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

struct Coding {
  std::string_view name;
  bool has_parameters = false;
};

// transfer-coding = token *( OWS ";" OWS transfer-parameter )
// transfer-parameter = token BWS "=" BWS ( token / quoted-string )   (RFC 9112 §7)
std::optional<Coding> parse_coding(Scanner& s) {
  Coding coding{s.token(), false};
  if (coding.name.empty()) return std::nullopt;
  for (;;) {
    s.skip_ows();
    if (!s.eat(';')) return coding;
    s.skip_ows();
    if (s.token().empty()) return std::nullopt;
    s.skip_ows();
    if (!s.eat('=')) return std::nullopt;
    s.skip_ows();
    if (s.peek() == '"' ? !s.quoted_string() : s.token().empty()) return std::nullopt;
    coding.has_parameters = true;
  }
}

// Every Transfer-Encoding line, in order, as one list (RFC 9110 §5.3). Empty
// list elements, which RFC 9110 §5.6.1 lets a recipient skip, are refused
// here: in a framing field any reading a second parser could make differently
// is a way to smuggle.
FramingErrc parse_transfer_codings(const HeaderList& fields, std::vector<Coding>& out) {
  for (const HeaderField& field : fields) {
    if (!iequals(field.name, "Transfer-Encoding")) continue;
    if (trim_ows(field.value).empty()) return FramingErrc::empty_transfer_encoding;
    Scanner s(field.value);
    for (;;) {
      s.skip_ows();
      auto coding = parse_coding(s);
      if (!coding) return FramingErrc::invalid_transfer_encoding;
      out.push_back(*coding);
      s.skip_ows();
      if (s.done()) break;
      if (!s.eat(',')) return FramingErrc::invalid_transfer_encoding;
    }
  }
  return FramingErrc::ok;
}

// Checks a present Transfer-Encoding: the chunked coding, once, last, with no
// parameters (RFC 9112 §6.1, §7.1). Codings before it are left to the caller.
FramingErrc check_chunked_last(const std::vector<Coding>& codings) {
  std::size_t chunked = 0;
  for (const Coding& c : codings) chunked += iequals(c.name, "chunked") ? 1 : 0;
  if (chunked > 1) return FramingErrc::chunked_repeated;
  if (!iequals(codings.back().name, "chunked")) return FramingErrc::chunked_not_final;
  if (codings.back().has_parameters) return FramingErrc::invalid_transfer_encoding;
  return FramingErrc::ok;
}

FramingErrc check_host(unsigned version, const HeaderList& fields) {
  std::size_t count = 0;
  for (const HeaderField& field : fields) {
    if (!iequals(field.name, "Host")) continue;
    if (++count > 1) return FramingErrc::multiple_host;
    // The same rules that make the request's target URI (cache_key.h):
    // a Host the route would refuse is refused here, in either form.
    if (!valid_host_field(field.value)) return FramingErrc::invalid_host;
  }
  return count == 0 && version >= 11 ? FramingErrc::missing_host : FramingErrc::ok;
}

// A request's Content-Length: one line of 1*DIGIT. Even a list of equal values
// is refused (RFC 9112 §6.3 item 5 allows it; nginx refuses it too).
FramingErrc request_content_length(const HeaderList& fields, std::optional<std::uint64_t>& out) {
  for (const HeaderField& field : fields) {
    if (!iequals(field.name, "Content-Length")) continue;
    if (out) return FramingErrc::multiple_content_length;
    const std::string_view value = trim_ows(field.value);
    if (value.find(',') != std::string_view::npos) return FramingErrc::multiple_content_length;
    out = parse_uint64(value);
    if (!out) return FramingErrc::invalid_content_length;
  }
  return FramingErrc::ok;
}

// A response's Content-Length: RFC 9112 §6.3 item 5 accepts a list whose
// members are all valid and equal, as one value.
FramingErrc response_content_length(const HeaderList& fields, std::optional<std::uint64_t>& out) {
  for (const HeaderField& field : fields) {
    if (!iequals(field.name, "Content-Length")) continue;
    std::string_view rest = field.value;
    for (;;) {
      const std::size_t comma = rest.find(',');
      const auto value = parse_uint64(trim_ows(rest.substr(0, comma)));
      if (!value) return FramingErrc::invalid_content_length;
      if (out && *out != *value) return FramingErrc::differing_content_length;
      out = value;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return FramingErrc::ok;
}

FramingRefusal refuse(unsigned status, FramingErrc reason) { return {status, reason}; }

}  // namespace

const std::error_category& framing_category() noexcept {
  static const FramingCategory category;
  return category;
}

FramingDecision request_framing(unsigned version, const HeaderList& fields) {
  // RFC 9110 §2.5, §15.6.6: a major version we cannot frame gets 505.
  if (version / 10 != 1) return refuse(505, FramingErrc::unsupported_version);
  if (auto e = check_host(version, fields); e != FramingErrc::ok) return refuse(400, e);
  std::optional<std::uint64_t> length;
  const FramingErrc length_error = request_content_length(fields, length);
  std::vector<Coding> codings;
  if (auto e = parse_transfer_codings(fields, codings); e != FramingErrc::ok) {
    return refuse(400, e);
  }
  if (!codings.empty()) {
    // RFC 9112 §6.1: Transfer-Encoding in HTTP/1.0 is faulty framing.
    if (version == 10) return refuse(400, FramingErrc::transfer_encoding_in_http10);
    // RFC 9112 §6.3 item 4: not chunked last → 400 and close.
    if (auto e = check_chunked_last(codings); e != FramingErrc::ok) return refuse(400, e);
    // RFC 9112 §6.1 lets a server reject both; nginx does, and so do we.
    if (length || length_error != FramingErrc::ok) {
      return refuse(400, FramingErrc::transfer_encoding_and_content_length);
    }
    // RFC 9112 §6.1: a coding we do not understand is 501; we decode only chunked.
    if (codings.size() > 1) return refuse(501, FramingErrc::unsupported_transfer_coding);
    return BodyFraming{BodyFraming::Kind::chunked, 0};
  }
  if (length_error != FramingErrc::ok) return refuse(400, length_error);
  if (length) return BodyFraming{BodyFraming::Kind::length, *length};
  return BodyFraming{};  // RFC 9112 §6.3 item 7: no body
}

FramingDecision response_framing(unsigned version, unsigned status, std::string_view request_method,
                                 const HeaderList& fields) {
  // RFC 9112 §6.3 item 5: a proxy that receives bad framing from upstream
  // closes that connection, discards the response and sends 502.
  constexpr unsigned kBadGateway = 502;
  if (version / 10 != 1) return refuse(kBadGateway, FramingErrc::unsupported_version);
  // RFC 9112 §6.3 items 1 and 2: these end with their head whatever they say.
  if (request_method == "HEAD" || status / 100 == 1 || status == 204 || status == 304 ||
      (request_method == "CONNECT" && status / 100 == 2)) {
    return BodyFraming{};
  }
  std::vector<Coding> codings;
  if (auto e = parse_transfer_codings(fields, codings); e != FramingErrc::ok) {
    return refuse(kBadGateway, e);
  }
  std::optional<std::uint64_t> length;
  const FramingErrc length_error = response_content_length(fields, length);
  if (!codings.empty()) {
    if (version == 10) return refuse(kBadGateway, FramingErrc::transfer_encoding_in_http10);
    if (length || length_error != FramingErrc::ok) {
      return refuse(kBadGateway, FramingErrc::transfer_encoding_and_content_length);
    }
    // RFC 9112 §6.3 item 4: a response whose last coding is not chunked has
    // a length all the same: it ends when the server closes the connection.
    // (A request cannot: it is refused above.)
    if (!iequals(codings.back().name, "chunked")) {
      return BodyFraming{BodyFraming::Kind::until_close, 0};
    }
    if (auto e = check_chunked_last(codings); e != FramingErrc::ok) return refuse(kBadGateway, e);
    // Relayed codings would reach the client undecoded under our own framing.
    if (codings.size() > 1) return refuse(kBadGateway, FramingErrc::unsupported_transfer_coding);
    return BodyFraming{BodyFraming::Kind::chunked, 0};
  }
  if (length_error != FramingErrc::ok) return refuse(kBadGateway, length_error);
  if (length) return BodyFraming{BodyFraming::Kind::length, *length};
  return BodyFraming{BodyFraming::Kind::until_close, 0};  // RFC 9112 §6.3 item 8
}

bool connection_persists(unsigned version, const HeaderList& fields) {
  bool keep_alive = false;
  for (const HeaderField& field : fields) {
    if (!iequals(field.name, "Connection")) continue;
    std::string_view rest = field.value;
    for (;;) {
      const std::size_t comma = rest.find(',');
      const std::string_view option = trim_ows(rest.substr(0, comma));
      if (iequals(option, "close")) return false;
      if (iequals(option, "keep-alive")) keep_alive = true;
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return version >= 11 || keep_alive;
}

}  // namespace sumcache::daemon
