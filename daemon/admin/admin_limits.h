#pragma once
// What the admin listener reads of one request (admin_session.cc): a head and a
// body far above any admin request, small enough that a client cannot make it
// hold much. The admin fuzz target (tests/fuzz) parses with the same.

#include <cstddef>
#include <cstdint>

namespace sumcache::daemon {

inline constexpr std::uint32_t kAdminMaxHeaderBytes = 16 * 1024;
inline constexpr std::size_t kAdminMaxBodyBytes = 64 * 1024;

}  // namespace sumcache::daemon
