#pragma once
// The admin endpoint's dashboard (GET /): daemon/admin/dashboard.html, built
// into the binary by cmake/embed_file.cmake so the page needs no files at run time.

#include <string_view>

namespace sumcache::daemon {

// The whole page, inline CSS and JS, UTF-8.
std::string_view dashboard_html();

}  // namespace sumcache::daemon
