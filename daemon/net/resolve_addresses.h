#pragma once
// The addresses of a host named in the config (a name or an IP literal), for
// the tables built from peers (allowed sources, refused destinations): once
// at start, blocking, and on a reload, bounded by a timeout so that a slow
// resolver cannot hold the control thread.

#include <chrono>
#include <string>
#include <vector>

#include "daemon/net/asio.h"

namespace sumcache::daemon {

struct ResolvedAddresses {
  error_code ec;  // asio::error::timed_out when the timeout ran out first
  std::vector<asio::ip::address> addresses;
};

ResolvedAddresses resolve_addresses(const asio::any_io_executor& executor, const std::string& host);

awaitable<ResolvedAddresses> resolve_addresses_within(asio::any_io_executor executor,
                                                      std::string host,
                                                      std::chrono::milliseconds timeout);

}  // namespace sumcache::daemon
