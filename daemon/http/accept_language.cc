#include "daemon/http/accept_language.h"

#include <algorithm>
#include <vector>

#include "daemon/http/field_value.h"

namespace sumcache::daemon {
namespace {

struct Member {
  std::string range;     // lower-cased
  unsigned thousandths;  // the q-value times 1000: 0 to 1000
};

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

// RFC 4647 §2.1: language-range = (1*8ALPHA *("-" 1*8alphanum)) / "*".
bool is_language_range(std::string_view text) {
  if (text == "*") return true;
  std::size_t start = 0;
  for (bool first = true;; first = false) {
    const std::size_t dash = text.find('-', start);
    const std::string_view subtag = text.substr(start, dash - start);
    if (subtag.empty() || subtag.size() > 8) return false;
    for (char c : subtag) {
      if (!is_alpha(c) && (first || !is_digit(c))) return false;
    }
    if (dash == std::string_view::npos) return true;
    start = dash + 1;
  }
}

// RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ).
std::optional<unsigned> parse_qvalue(std::string_view text) {
  if (text.empty() || (text[0] != '0' && text[0] != '1')) return std::nullopt;
  const unsigned whole = text[0] == '1' ? 1000 : 0;
  if (text.size() == 1) return whole;
  if (text[1] != '.' || text.size() > 5) return std::nullopt;
  unsigned fraction = 0;
  unsigned scale = 100;
  for (char c : text.substr(2)) {
    if (!is_digit(c) || (whole == 1000 && c != '0')) return std::nullopt;
    fraction += static_cast<unsigned>(c - '0') * scale;
    scale /= 10;
  }
  return whole + fraction;
}

std::optional<Member> parse_member(std::string_view member) {
  const std::size_t semicolon = member.find(';');
  const std::string_view range = trim_ows(member.substr(0, semicolon));
  if (!is_language_range(range)) return std::nullopt;
  Member out{to_lower(range), 1000};
  if (semicolon == std::string_view::npos) return out;
  // weight = OWS ";" OWS "q=" qvalue: one parameter, and it is q.
  const std::string_view weight = trim_ows(member.substr(semicolon + 1));
  if (weight.size() < 2 || (weight[0] != 'q' && weight[0] != 'Q') || weight[1] != '=') {
    return std::nullopt;
  }
  const auto q = parse_qvalue(weight.substr(2));
  if (!q) return std::nullopt;
  out.thousandths = *q;
  return out;
}

// RFC 4647 §3.3.1: basic filtering matches a tag equal to the range or
// starting with it followed by "-"; two ranges overlap when one of them
// could match what the other does.
bool overlaps(std::string_view a, std::string_view b) {
  const auto prefixes = [](std::string_view shorter, std::string_view longer) {
    return longer.starts_with(shorter) &&
           (longer.size() == shorter.size() || longer[shorter.size()] == '-');
  };
  return prefixes(a, b) || prefixes(b, a);
}

// A q=0 member is redundant when nothing else in the field admits what it names.
bool redundant_exclusion(const Member& m, const std::vector<Member>& all) {
  if (m.thousandths != 0) return false;
  return std::ranges::none_of(all, [&m](const Member& other) {
    return &other != &m && (other.range == "*" || overlaps(other.range, m.range));
  });
}

std::string qvalue_text(unsigned thousandths) {
  std::string digits = std::to_string(1000 + thousandths).substr(1);  // three digits
  while (digits.ends_with('0')) digits.pop_back();
  return digits.empty() ? "0" : "0." + digits;
}

}  // namespace

std::optional<std::string> normalize_accept_language(std::string_view value) {
  std::vector<Member> members;
  for (std::string_view text : split_list(value)) {
    auto member = parse_member(text);
    if (!member) return std::nullopt;
    members.push_back(std::move(*member));
  }
  std::vector<const Member*> kept;
  for (const Member& m : members) {
    if (!redundant_exclusion(m, members)) kept.push_back(&m);
  }
  std::ranges::stable_sort(
      kept, [](const Member* a, const Member* b) { return a->thousandths > b->thousandths; });
  std::string out;
  for (const Member* m : kept) {
    if (!out.empty()) out += ", ";
    out += m->range;
    if (m->thousandths != 1000) out += ";q=" + qvalue_text(m->thousandths);
  }
  return out;
}

}  // namespace sumcache::daemon
