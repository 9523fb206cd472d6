#pragma once
// Accept-Language normalised for Vary matching (RFC 9111 §4.1 lets a cache
// normalise a selecting field when the semantics are the same): two requests
// whose Accept-Language means the same preferences get one stored variant.
//
// RFC 9110 §12.5.4: Accept-Language = #( language-range [ weight ] ), with
// language-range from RFC 4647 §2.1 (1*8ALPHA *("-" 1*8alphanum), or "*") and
// weight = OWS ";" OWS "q=" qvalue (§12.4.2; "q" in any case).

#include <optional>
#include <string>
#include <string_view>

namespace sumcache::daemon {

// The canonical form: ranges lower-cased (RFC 4647 §2: case-insensitive),
// ordered by q-value, highest first, keeping the sent order between equal
// q-values (servers commonly take the first of equal ones); ";q=" written
// canonically ("0.5", not "0.500") and left out for q=1; members joined with
// ", ". A q=0 member ("not acceptable", §12.4.2) is dropped when nothing else
// in the field could admit what it names: no "*" and no other range equal to
// it, a prefix of it, or prefixed by it (RFC 4647 §3.3.1 basic filtering).
// Then a language it names matches no range, which makes it not acceptable
// all the same. nullopt when the value does not follow the syntax above (then
// it is compared as sent, only list whitespace normalised).
std::optional<std::string> normalize_accept_language(std::string_view value);

}  // namespace sumcache::daemon
