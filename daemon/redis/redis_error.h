#pragma once
// Errors of the redis layer (besides Asio's): a category of its own. Apart from
// redis_connection.h so that the reply reader (and its fuzz target) need no Asio.

#include <boost/system/error_code.hpp>
#include <system_error>

namespace sumcache::daemon {

enum class RedisErrc {
  protocol_error = 1,  // the server's bytes are not RESP (hiredis's reader error)
  reply_too_large,     // over RedisReplyLimits
  auth_refused,        // AUTH answered with an error
  unexpected_reply,    // PING not answered PONG, or a reply of the wrong shape
  not_connected,       // RedisLink: down, reconnecting
};
const std::error_category& redis_category();
// The layer's calls complete with boost::system::error_code, as Asio's do: it wraps the std one
// (and compares equal to RedisErrc values).
inline boost::system::error_code make_error_code(RedisErrc e) {
  return std::error_code(static_cast<int>(e), redis_category());
}

}  // namespace sumcache::daemon

template <>
struct boost::system::is_error_code_enum<sumcache::daemon::RedisErrc> : std::true_type {};
