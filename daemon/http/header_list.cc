#include "daemon/http/header_list.h"

#include <algorithm>

#include "daemon/http/field_value.h"

namespace sumcache::daemon {

bool has_field(const HeaderList& fields, std::string_view name) {
  return first_value(fields, name).has_value();
}

std::size_t count_fields(const HeaderList& fields, std::string_view name) {
  return static_cast<std::size_t>(std::ranges::count_if(
      fields, [name](const HeaderField& f) { return iequals(f.name, name); }));
}

std::optional<std::string_view> first_value(const HeaderList& fields, std::string_view name) {
  for (const HeaderField& f : fields) {
    if (iequals(f.name, name)) return std::string_view(f.value);
  }
  return std::nullopt;
}

std::optional<std::string> joined_value(const HeaderList& fields, std::string_view name) {
  std::optional<std::string> joined;
  for (const HeaderField& f : fields) {
    if (!iequals(f.name, name)) continue;
    if (joined) {
      joined->append(", ");
      joined->append(f.value);
    } else {
      joined = f.value;
    }
  }
  return joined;
}

void remove_field(HeaderList& fields, std::string_view name) {
  std::erase_if(fields, [name](const HeaderField& f) { return iequals(f.name, name); });
}

}  // namespace sumcache::daemon
