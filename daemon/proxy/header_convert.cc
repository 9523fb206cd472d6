#include "daemon/proxy/header_convert.h"

namespace sumcache::daemon {

HeaderList to_header_list(const http::fields& fields) {
  HeaderList list;
  list.reserve(static_cast<std::size_t>(std::distance(fields.begin(), fields.end())));
  for (const auto& field : fields) {
    list.push_back({std::string(field.name_string()), std::string(field.value())});
  }
  return list;
}

}  // namespace sumcache::daemon
