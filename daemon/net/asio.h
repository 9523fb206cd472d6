#pragma once
// Short names for Asio and Beast, shared by all daemon code that does I/O.
// Coroutines complete with (error_code, ...) tuples: no exceptions on the data path.

#include <limits>

#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace sumcache::daemon {

namespace asio = boost::asio;
namespace beast = boost::beast;
using tcp = asio::ip::tcp;
using udp = asio::ip::udp;
using error_code = boost::system::error_code;

template <class T = void>
using awaitable = asio::awaitable<T>;

inline constexpr auto use_nothrow = asio::as_tuple(asio::use_awaitable);

// asio::transfer_all() caps each writev at 64 KiB: a 256 KiB response then
// takes four system calls, each pushing its own segments through the stack
// and waking the reader. This lets the kernel take all it has room for.
inline constexpr auto transfer_all_at_once = [](const error_code& ec, std::size_t) -> std::size_t {
  return ec ? 0 : std::numeric_limits<std::size_t>::max();
};

}  // namespace sumcache::daemon
