#include "daemon/net/accept_loop.h"

namespace sumcache::daemon {
namespace {

// The errno behind an Asio error; -1 when it is not one.
int errno_of(const error_code& ec) {
  return ec.category() == boost::system::system_category() ? ec.value() : -1;
}

void log_failure(AcceptSite& site, const error_code& ec, AcceptFailure failure,
                 std::chrono::milliseconds pause) {
  const auto held = site.log_limiter.admit(LogLimiter::Clock::now());
  if (!held) return;
  std::string line = site.name + ": accept failed (" + to_string(failure) + "): " + ec.message();
  if (pause.count() > 0) line += "; pausing " + std::to_string(pause.count()) + " ms";
  if (*held > 0) line += " (" + std::to_string(*held) + " more failures since the last line)";
  site.log.warn(line);
}

}  // namespace

awaitable<void> accept_connections(tcp::acceptor& acceptor, AcceptSite& site,
                                   std::function<void(tcp::socket)> on_connection) {
  std::chrono::milliseconds pause{0};
  asio::steady_timer timer(acceptor.get_executor());
  while (acceptor.is_open()) {
    auto [ec, socket] = co_await acceptor.async_accept(use_nothrow);
    if (!ec) {
      pause = std::chrono::milliseconds{0};
      on_connection(std::move(socket));
      continue;
    }
    const int value = errno_of(ec);
    const AcceptAction action = ec == asio::error::operation_aborted
                                    ? AcceptAction::stop
                                    : accept_action(value, acceptor.is_open());
    if (action == AcceptAction::stop) co_return;
    const AcceptFailure failure = classify_accept_errno(value);
    site.counters.add(failure);
    if (action == AcceptAction::retry) {
      log_failure(site, ec, failure, std::chrono::milliseconds{0});
      continue;
    }
    pause = next_pause(pause, site.backoff);
    log_failure(site, ec, failure, pause);
    timer.expires_after(pause);
    co_await timer.async_wait(use_nothrow);
  }
}

}  // namespace sumcache::daemon
