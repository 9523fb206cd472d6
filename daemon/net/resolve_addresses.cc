#include "daemon/net/resolve_addresses.h"

namespace sumcache::daemon {

using namespace asio::experimental::awaitable_operators;

namespace {

ResolvedAddresses addresses_of(error_code ec, const tcp::resolver::results_type& results) {
  ResolvedAddresses out{ec, {}};
  if (ec) return out;
  for (const auto& r : results) out.addresses.push_back(r.endpoint().address());
  if (out.addresses.empty()) out.ec = asio::error::host_not_found;
  return out;
}

}  // namespace

ResolvedAddresses resolve_addresses(const asio::any_io_executor& executor,
                                    const std::string& host) {
  tcp::resolver resolver(executor);
  error_code ec;
  const auto results = resolver.resolve(host, "0", ec);
  return addresses_of(ec, results);
}

awaitable<ResolvedAddresses> resolve_addresses_within(asio::any_io_executor executor,
                                                      std::string host,
                                                      std::chrono::milliseconds timeout) {
  error_code ec;
  if (const auto literal = asio::ip::make_address(host, ec); !ec)
    co_return ResolvedAddresses{{}, {literal}};
  tcp::resolver resolver(executor);
  asio::steady_timer timer(executor, timeout);
  auto outcome =
      co_await (resolver.async_resolve(host, "0", use_nothrow) || timer.async_wait(use_nothrow));
  if (outcome.index() == 1) co_return ResolvedAddresses{asio::error::timed_out, {}};
  auto [resolve_ec, results] = std::get<0>(std::move(outcome));
  co_return addresses_of(resolve_ec, results);
}

}  // namespace sumcache::daemon
