#pragma once
// Opening a log destination: "-" means the given standard stream.

#include <cstdio>
#include <string>
#include <system_error>

namespace sumcache::daemon {

std::FILE* open_log_file(const std::string& path, std::FILE* standard, std::error_code& ec);
void close_log_file(std::FILE* file, std::FILE* standard);
// Local time as "2026-11-21T08:37:52.123" for log lines.
std::string log_timestamp();

}  // namespace sumcache::daemon
