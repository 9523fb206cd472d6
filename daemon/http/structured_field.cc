#include "daemon/http/structured_field.h"

namespace sumcache::daemon {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lcalpha(char c) { return c >= 'a' && c <= 'z'; }
bool is_alpha(char c) { return is_lcalpha(c) || (c >= 'A' && c <= 'Z'); }

// tchar (RFC 9110 §5.6.2).
bool is_tchar(char c) {
  return is_alpha(c) || is_digit(c) ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_base64(char c) { return is_alpha(c) || is_digit(c) || c == '+' || c == '/' || c == '='; }

// One pass over the input; every parse_* consumes what it accepts and returns
// false (or nullopt) on the first byte RFC 8941 §4.2 says to fail on.
class Parser {
 public:
  explicit Parser(std::string_view input) : in_(input) {}

  bool empty() const { return in_.empty(); }
  char peek() const { return in_.front(); }
  void skip() { in_.remove_prefix(1); }

  void discard_sp() {
    while (!empty() && peek() == ' ') skip();
  }
  void discard_ows() {
    while (!empty() && (peek() == ' ' || peek() == '\t')) skip();
  }

  // §4.2.3.3: key = ( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )
  std::optional<std::string> parse_key() {
    if (empty() || !(is_lcalpha(peek()) || peek() == '*')) return std::nullopt;
    std::string key;
    while (!empty()) {
      const char c = peek();
      if (!(is_lcalpha(c) || is_digit(c) || c == '_' || c == '-' || c == '.' || c == '*')) break;
      key += c;
      skip();
    }
    return key;
  }

  // §4.2.3.1: a bare item into `out` (key untouched).
  bool parse_bare_item(SfMember& out) {
    if (empty()) return false;
    const char c = peek();
    if (c == '-' || is_digit(c)) return parse_number(out);
    if (c == '"') return parse_string(out);
    if (c == '*' || is_alpha(c)) return parse_token(out);
    if (c == ':') return parse_byte_sequence(out);
    if (c == '?') return parse_boolean(out);
    return false;
  }

  // §4.2.3.2: parameters are checked and dropped.
  bool parse_parameters() {
    while (!empty() && peek() == ';') {
      skip();
      discard_sp();
      if (!parse_key()) return false;
      if (!empty() && peek() == '=') {
        skip();
        SfMember ignored;
        if (!parse_bare_item(ignored)) return false;
      }
    }
    return true;
  }

  // §4.2.1.1: an Item or an Inner List.
  bool parse_item_or_inner_list(SfMember& out) {
    if (!empty() && peek() == '(') return parse_inner_list(out);
    return parse_bare_item(out) && parse_parameters();
  }

 private:
  // §4.2.1.2
  bool parse_inner_list(SfMember& out) {
    skip();  // "("
    while (!empty()) {
      discard_sp();
      if (!empty() && peek() == ')') {
        skip();
        out.type = SfType::inner_list;
        return parse_parameters();
      }
      SfMember item;
      if (!parse_bare_item(item) || !parse_parameters()) return false;
      if (empty() || (peek() != ' ' && peek() != ')')) return false;
    }
    return false;  // no closing ")"
  }

  // §4.2.4: at most 15 integer digits, or 12 + "." + 3 for a Decimal.
  bool parse_number(SfMember& out) {
    bool negative = false;
    if (peek() == '-') {
      negative = true;
      skip();
    }
    if (empty() || !is_digit(peek())) return false;
    std::string digits;
    bool decimal = false;
    std::size_t fraction_digits = 0;
    while (!empty()) {
      const char c = peek();
      if (is_digit(c)) {
        digits += c;
        if (decimal) ++fraction_digits;
      } else if (c == '.' && !decimal) {
        if (digits.size() > 12) return false;
        decimal = true;
      } else {
        break;
      }
      skip();
      if (!decimal && digits.size() > 15) return false;
      if (decimal && digits.size() > 15) return false;  // 12 + 3 digits and the "."
    }
    if (decimal) {
      if (fraction_digits == 0 || fraction_digits > 3) return false;
      out.type = SfType::decimal;
      return true;
    }
    std::int64_t value = 0;
    for (char c : digits) value = value * 10 + (c - '0');  // < 10^15: no overflow
    out.type = SfType::integer;
    out.integer = negative ? -value : value;
    return true;
  }

  // §4.2.5: printable ASCII; "\" escapes only DQUOTE and "\".
  bool parse_string(SfMember& out) {
    skip();  // DQUOTE
    std::string text;
    while (!empty()) {
      const char c = peek();
      skip();
      if (c == '\\') {
        if (empty() || (peek() != '"' && peek() != '\\')) return false;
        text += peek();
        skip();
      } else if (c == '"') {
        out.type = SfType::string;
        out.text = std::move(text);
        return true;
      } else if (c < 0x20 || c > 0x7e) {
        return false;
      } else {
        text += c;
      }
    }
    return false;  // unterminated
  }

  // §4.2.6
  bool parse_token(SfMember& out) {
    std::string text;
    while (!empty() && (is_tchar(peek()) || peek() == ':' || peek() == '/')) {
      text += peek();
      skip();
    }
    out.type = SfType::token;
    out.text = std::move(text);
    return true;
  }

  // §4.2.7: the base64 alphabet between colons; the content is not needed.
  bool parse_byte_sequence(SfMember& out) {
    skip();  // ":"
    while (!empty() && peek() != ':') {
      if (!is_base64(peek())) return false;
      skip();
    }
    if (empty()) return false;
    skip();
    out.type = SfType::byte_sequence;
    return true;
  }

  // §4.2.8
  bool parse_boolean(SfMember& out) {
    skip();  // "?"
    if (empty() || (peek() != '0' && peek() != '1')) return false;
    out.type = SfType::boolean;
    out.boolean = peek() == '1';
    skip();
    return true;
  }

  std::string_view in_;
};

}  // namespace

std::optional<std::vector<SfMember>> parse_sf_dictionary(std::string_view input) {
  Parser p(input);
  p.discard_sp();
  std::vector<SfMember> members;
  while (!p.empty()) {
    auto key = p.parse_key();
    if (!key) return std::nullopt;
    SfMember member;
    if (!p.empty() && p.peek() == '=') {
      p.skip();
      if (!p.parse_item_or_inner_list(member)) return std::nullopt;
    } else if (!p.parse_parameters()) {  // a bare key is Boolean true
      return std::nullopt;
    }
    member.key = std::move(*key);
    members.push_back(std::move(member));
    p.discard_ows();
    if (p.empty()) return members;
    if (p.peek() != ',') return std::nullopt;
    p.skip();
    p.discard_ows();
    if (p.empty()) return std::nullopt;  // a trailing comma
  }
  return members;
}

}  // namespace sumcache::daemon
