// Stands in for the generated dashboard_page.cc until the dashboard page
// (feat/ops) is merged; remove it from daemon/admin/CMakeLists.txt then.
#include "daemon/admin/dashboard_page.h"

namespace sumcache::daemon {

std::string_view dashboard_html() {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<title>sumcached</title></head><body><h1>sumcached</h1><p>"
         "<a href=\"/stats\">/stats</a> <a href=\"/peers\">/peers</a> "
         "<a href=\"/filter\">/filter</a> <a href=\"/metrics\">/metrics</a> "
         "<a href=\"/config\">/config</a></p></body></html>\n";
}

}  // namespace sumcache::daemon
