#include "daemon/proxy/header_convert.h"

namespace sumcache::daemon {

HeaderList to_header_list(const http::fields& fields) {
  HeaderList list;
  for (const auto& field : fields) {
    list.push_back({std::string(field.name_string()), std::string(field.value())});
  }
  return list;
}

void assign_fields(http::fields& fields, const HeaderList& list) {
  for (auto it = fields.begin(); it != fields.end();) it = fields.erase(it);
  for (const auto& field : list) fields.insert(field.name, field.value);
}

}  // namespace sumcache::daemon
