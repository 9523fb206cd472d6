#pragma once
// A strict parser for Structured Field Dictionaries (RFC 8941 §4.2.2), the
// syntax of targeted cache-control fields (RFC 9213 §2.1). Whatever is not a
// valid Dictionary fails as a whole (RFC 8941 §4.2: "fail parsing"); the
// caller then ignores the field. Parameters are checked for syntax and
// dropped: no rule here reads them (RFC 9213 §2.1 ignores them).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sumcache::daemon {

enum class SfType { integer, decimal, string, token, byte_sequence, boolean, inner_list };

struct SfMember {
  std::string key;
  SfType type = SfType::boolean;
  std::int64_t integer = 0;  // SfType::integer
  bool boolean = true;       // SfType::boolean
  std::string text;          // SfType::string (unescaped), token
};

// The members in order. A repeated key appears again: the reader takes the
// last one (RFC 8941 §4.2.2), which keeps parsing linear in the input.
// nullopt when the input is not a Dictionary.
// Leading and trailing SP are discarded (§4.2); an empty input is an empty
// Dictionary.
std::optional<std::vector<SfMember>> parse_sf_dictionary(std::string_view input);

}  // namespace sumcache::daemon
