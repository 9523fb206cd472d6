#pragma once
// The squid-digest peers of summary mode (docs/interop.md, "Squid as a peer
// of sumcache"): for each, a loop on the peer thread fetches its Cache Digest
// (squid_digest_fetch.h) when the one held expires (squid_digest_schedule.h),
// and puts a good one into the summary directory under the Squid probe scheme.
// A damaged digest is refused (a log line naming the peer and reason, once a
// second with a count, and the peer's refused counter) and the digest held
// before stays in use until it ages past cluster.summary_expiry_ms. Nothing
// is ever sent to a Squid but these GETs: no summaries, no invalidations.

#include <array>
#include <memory>

#include "config/config.h"
#include "daemon/log/log_limiter.h"
#include "daemon/log/logger.h"
#include "daemon/net/asio.h"
#include "daemon/peer/peer_table.h"
#include "daemon/peer/squid_digest_fetch.h"
#include "filters/summary_directory.h"

namespace sumcache::daemon {

class SquidDigestPeers {
 public:
  // max_mask_bits: the largest digest read (cluster.peer_max_filter_bits, as derived).
  SquidDigestPeers(asio::any_io_executor executor, const config::Config& config, Logger& log,
                   PeerTable& table, filters::SummaryDirectory& directory,
                   std::uint64_t max_mask_bits);
  // On the peer thread. add starts the peer's fetch loop (at once when
  // started, else at start); remove ends it and clears its directory column.
  void add(std::shared_ptr<Peer> peer);
  void remove(const Peer& peer);
  void start();
  void stop();

 private:
  struct Lane {
    Lane(std::shared_ptr<Peer> p, const asio::any_io_executor& executor)
        : peer(std::move(p)), timer(executor) {}
    std::shared_ptr<Peer> peer;
    asio::steady_timer timer;
    bool removed = false;
    unsigned failures = 0;  // fetches in a row without a usable digest
  };
  awaitable<void> loop(std::shared_ptr<Lane> lane);
  // One fetch and what follows from it; returns the delay to the next.
  awaitable<std::chrono::milliseconds> fetch(Lane& lane);
  void refused(Lane& lane, const std::string& why);
  void failed(Lane& lane, const std::string& why);

  asio::any_io_executor executor_;
  const config::Config& config_;
  Logger& log_;
  PeerTable& table_;
  filters::SummaryDirectory& directory_;
  std::uint32_t max_mask_bytes_;
  std::array<std::shared_ptr<Lane>, PeerTable::kSlots> lanes_;
  bool started_ = false;
  LogLimiter refused_log_;
  LogLimiter error_log_;
};

}  // namespace sumcache::daemon
