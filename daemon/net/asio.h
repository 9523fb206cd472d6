#pragma once
// Short names for Asio and Beast, shared by all daemon code that does I/O.
// Coroutines complete with (error_code, ...) tuples: no exceptions on the data path.

#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

namespace sumcache::daemon {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using udp = asio::ip::udp;
using error_code = boost::system::error_code;

template <class T = void>
using awaitable = asio::awaitable<T>;

inline constexpr auto use_nothrow = asio::as_tuple(asio::use_awaitable);

}  // namespace sumcache::daemon
