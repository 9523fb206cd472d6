#pragma once
// Asio pieces shared by the support library's network code; internal to it.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>
#include <optional>
#include <utility>

namespace sumcache::testing {

namespace asio = boost::asio;

// Completion token for coroutines that take errors as values: no exceptions on the data path.
inline constexpr auto kUseTuple = asio::as_tuple(asio::use_awaitable);

// Runs `task` on `ioc` until it ends and returns its result; the task's own timeouts bound the
// wait. For the synchronous clients, which own an io_context each.
template <class T>
T run_sync(asio::io_context& ioc, asio::awaitable<T> task) {
  std::optional<T> result;
  std::exception_ptr error;
  asio::co_spawn(ioc, std::move(task), [&](std::exception_ptr e, T value) {
    error = e;
    result = std::move(value);
  });
  ioc.restart();
  ioc.run();
  if (error) std::rethrow_exception(error);
  return std::move(*result);
}

}  // namespace sumcache::testing
