#include "daemon/exchange/header_convert.h"

namespace sumcache::daemon {

HeaderList to_header_list(const http::fields& fields) {
  HeaderList list;
  list.reserve(static_cast<std::size_t>(std::distance(fields.begin(), fields.end())));
  for (const auto& field : fields) {
    list.push_back({std::string(field.name_string()), std::string(field.value())});
  }
  return list;
}

HeaderList framing_fields(const http::fields& fields) {
  HeaderList list;
  for (const auto& field : fields) {
    const http::field name = field.name();
    if (name == http::field::transfer_encoding || name == http::field::content_length ||
        name == http::field::host) {
      list.push_back({std::string(field.name_string()), std::string(field.value())});
    }
  }
  return list;
}

}  // namespace sumcache::daemon
