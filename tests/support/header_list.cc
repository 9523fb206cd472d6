#include "tests/support/header_list.h"

#include <algorithm>
#include <cctype>

namespace sumcache::testing {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

}  // namespace

std::optional<std::string> find_header(const HeaderList& headers, std::string_view name) {
  for (const auto& [field, value] : headers) {
    if (iequals(field, name)) return value;
  }
  return std::nullopt;
}

}  // namespace sumcache::testing
