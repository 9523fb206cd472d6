#pragma once
// A fixed clock for the rules' tests: times are offsets in seconds from kT0.

#include <chrono>
#include <cstdint>
#include <string>

#include "daemon/http/http_date.h"

namespace sumcache::daemon::testing {

inline constexpr std::chrono::sys_seconds kT0{
    std::chrono::sys_days{std::chrono::year{2024} / 3 / 1}};

inline std::chrono::sys_seconds at(std::int64_t offset) {
  return kT0 + std::chrono::seconds{offset};
}

inline std::string date_at(std::int64_t offset) { return format_http_date(at(offset)); }

}  // namespace sumcache::daemon::testing
