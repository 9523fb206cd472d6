#include "daemon/app/daemon_app.h"

#include <csignal>
#include <iostream>

#include "daemon/app/server.h"
#include "daemon/cache/cache_service.h"
#include "daemon/cache/squid_digest_service.h"
#include "daemon/http/vary.h"
#include "daemon/log/access_log.h"
#include "daemon/log/logger.h"
#include "daemon/peer/peer_service.h"
#include "filters/fingerprint.h"
#include "protocol/invalidation_message.h"
#include "protocol/wire_sizing.h"

namespace sumcache::daemon {

namespace {

// filter.target_fpr, when set, decides m and k (config/cache_config.h).
Result<filters::BloomParams> filter_params(const config::Config& config) {
  const auto& f = config.filter;
  const std::uint64_t n = config::filter_expected_entries(config);
  if (f.target_fpr <= 0) return filters::params_for_load(n, f.bits_per_entry, f.hashes);
  if (f.objective == config::FilterObjective::memory)
    return filters::optimal_params(n, f.target_fpr);
  auto wire = protocol::wire_optimal(n, f.target_fpr);
  if (!wire) return wire.error();
  return wire->params;
}

// filter.kind fingerprint: U = ceil(n / p), p = filter.target_fpr or the
// paper's rate (config/cache_config.h); 0 for the counting filter.
Result<std::uint64_t> fingerprint_universe(const config::Config& config) {
  const auto& f = config.filter;
  if (f.kind != config::FilterKind::fingerprint) return std::uint64_t{0};
  return filters::fingerprint_universe(config::filter_expected_entries(config),
                                       f.target_fpr > 0 ? f.target_fpr : config::kPaperFpr);
}

StoreOptions store_options(const config::Config& config, filters::BloomParams params,
                           std::uint64_t universe, Logger& log) {
  StoreOptions o;
  o.memory_max_bytes = config.cache.memory.max_bytes;
  o.disk_enabled = config.cache.disk.enabled;
  o.disk_path = config.cache.disk.path.string();
  o.disk_max_bytes = config.cache.disk.max_bytes;
  o.fsync = config.cache.disk.fsync;
  o.max_object_bytes = config.cache.max_object_bytes;
  // Queued writes hold their bodies: room for the largest that is held whole
  // (a larger one is written to disk as it streams, never queued).
  o.write_queue_max_bytes =
      std::max(o.write_queue_max_bytes, std::min(o.max_object_bytes, o.memory_max_bytes));
  // A restart must not bring back a damaged object: check every body at open.
  o.verify_bodies_on_open = true;
  o.shards = config.cache.shards;
  o.filter_params = params;
  o.fingerprint_universe = universe;
  o.tags = {config.cache.tag_header, config.cache.max_tags_per_object,
            protocol::kMaxInvalidationTagBytes};
  o.max_tag_pairs = config.cache.tag_index_max_entries;
  o.max_variants_per_key = config.cache.max_variants_per_key;
  o.variant_group = [](std::string_view variant) { return vary_fields(variant); };
  o.log = [&log](std::string_view message) { log.warn(message); };
  return o;
}

CachePolicy cache_policy(const config::Config& config) {
  CachePolicy policy;
  policy.max_object_bytes = config.cache.max_object_bytes;
  return policy;
}

}  // namespace

int run_daemon(config::Config config, const std::string& config_path) {
  // Signals are taken by the server's signal_set; block them in every thread
  // it starts so that none lands on a worker first.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGTERM, SIGINT, SIGHUP, SIGUSR1}) sigaddset(&signals, s);
  // Before the store starts its disk writer thread: a thread with these
  // unblocked would take a startup signal with the default action (exit).
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  ::signal(SIGPIPE, SIG_IGN);

  Logger log(static_cast<LogLevel>(config.log.level), config.log.error_log);
  AccessLog access_log(config.log.access_log, config.log.access_format);
  if (access_log.open_error()) {
    log.error("cannot open access log " + config.log.access_log + ": " +
              access_log.open_error().message());
    return 1;
  }
  std::string banner = "sumcached ";
  banner.append(kVersion).append(" starting, node ").append(config.node.id);
  banner.append(config_path.empty() ? ", embedded default config" : ", config ");
  banner.append(config_path);
  log.info(banner);
  const auto params = filter_params(config);
  if (!params) {
    log.error("filter: no parameters for " +
              std::to_string(config::filter_expected_entries(config)) +
              " entries from the filter section: " + params.error().message());
    return 1;
  }
  const auto universe = fingerprint_universe(config);
  if (!universe) {
    log.error(
        "filter: no fingerprint universe for " +
        std::to_string(config::filter_expected_entries(config)) +
        " entries (filter.expected_entries, filter.target_fpr): " + universe.error().message());
    return 1;
  }
  if (*universe > 0) {
    log.info("filter: fingerprint summaries, universe " + std::to_string(*universe) + " for " +
             std::to_string(config::filter_expected_entries(config)) + " entries");
  } else {
    log.info("filter: m = " + std::to_string(params->m) +
             " counters, k = " + std::to_string(params->k) + " for " +
             std::to_string(config::filter_expected_entries(config)) + " entries");
  }
  auto store = Store::open(store_options(config, *params, *universe, log));
  if (!store) {
    log.error("cannot open the cache store at " + config.cache.disk.path.string() + ": " +
              store.error().message());
    return 1;
  }
  const StoreStats loaded = (*store)->stats();
  log.info("cache store ready: " + std::to_string(loaded.objects) + " objects (" +
           std::to_string(loaded.disk_bytes) + " bytes on disk)");
  CacheService cache(**store, cache_policy(config));
  std::unique_ptr<SquidDigestService> squid_digest;
  if (config.cluster.squid_digest.enabled) {
    squid_digest = std::make_unique<SquidDigestService>(
        **store, config.cluster.squid_digest.rebuild_interval_ms, log);
    cache.set_squid_digest(squid_digest.get());
    squid_digest->start();
  }
  Server server(config, config_path, log, access_log, &cache);
  std::unique_ptr<PeerService> peers;
  if (runs_cluster(config)) {
    peers = std::make_unique<PeerService>(config, **store, log);
    cache.set_peers(peers.get());
    peers->on_sources([&server](std::optional<AccessList> sources) {
      server.set_peer_sources(std::move(sources));
    });
    peers->on_listeners(
        [&server](PeerListeners listeners) { server.set_peer_listeners(std::move(listeners)); });
    server.on_reload([&peers](const config::Config& c) { peers->apply_live(c); });
    server.on_drain([&peers] { peers->begin_drain(); });
  }
  if (peers && !peers->start()) return 1;
  if (!server.start()) return 1;
  server.run();  // unblocks them once its handlers are in place
  // The workers have stopped: no I/O job may post to their executors after this.
  (*store)->stop_io();
  if (peers) peers->stop();
  // Every stored object is queued for disk: writing the queue out is what
  // makes a restart lose nothing, and it can take seconds after a fill.
  const StoreStats pending = (*store)->stats();
  if (pending.queued_disk_jobs > 0) {
    log.info("writing " + std::to_string(pending.queued_disk_jobs) + " queued disk jobs (" +
             std::to_string(pending.queued_disk_bytes) + " bytes) before exit");
    (*store)->flush();
    log.info("disk queue written");
  }
  return 0;
}

}  // namespace sumcache::daemon
