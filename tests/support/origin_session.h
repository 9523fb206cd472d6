#pragma once
// One connection to the test origin: reads requests, logs them, and carries out
// the ResponsePlan of each; internal to the origin.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <chrono>
#include <functional>

#include "tests/support/request_log.h"

namespace sumcache::testing {

struct SessionConfig {
  RequestLog* log = nullptr;
  std::function<void(const LoggedRequest&)> on_request;  // may be empty
  std::chrono::milliseconds io_timeout{10'000};          // each read and write, and idle time
};

boost::asio::awaitable<void> serve_plain(boost::asio::ip::tcp::socket socket,
                                         const SessionConfig& config);
boost::asio::awaitable<void> serve_tls(boost::asio::ip::tcp::socket socket,
                                       boost::asio::ssl::context& tls, const SessionConfig& config);

}  // namespace sumcache::testing
