#include "daemon/exchange/header_convert.h"

namespace sumcache::daemon {

HeaderList to_header_list(const beast::http::fields& fields) {
  HeaderList list;
  list.reserve(static_cast<std::size_t>(std::distance(fields.begin(), fields.end())));
  for (const auto& field : fields) {
    list.push_back({std::string(field.name_string()), std::string(field.value())});
  }
  return list;
}

HeaderList framing_fields(const beast::http::fields& fields) {
  HeaderList list;
  for (const auto& field : fields) {
    const beast::http::field name = field.name();
    if (name == beast::http::field::transfer_encoding ||
        name == beast::http::field::content_length || name == beast::http::field::host ||
        name == beast::http::field::connection) {
      list.push_back({std::string(field.name_string()), std::string(field.value())});
    }
  }
  return list;
}

}  // namespace sumcache::daemon
