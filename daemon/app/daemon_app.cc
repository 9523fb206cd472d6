#include "daemon/app/daemon_app.h"

#include <csignal>
#include <iostream>

#include "daemon/cache/cache_service.h"
#include "daemon/log/access_log.h"
#include "daemon/log/logger.h"
#include "daemon/server/server.h"

namespace sumcache::daemon {

namespace {

StoreOptions store_options(const config::Config& config, Logger& log) {
  StoreOptions o;
  o.memory_max_bytes = config.cache.memory.max_bytes;
  o.disk_enabled = config.cache.disk.enabled;
  o.disk_path = config.cache.disk.path.string();
  o.disk_max_bytes = config.cache.disk.max_bytes;
  o.fsync = config.cache.disk.fsync;
  o.max_object_bytes = config.cache.max_object_bytes;
  o.write_queue_max_bytes = std::max(o.write_queue_max_bytes, o.max_object_bytes);
  // A restart must not bring back a damaged object: check every body at open.
  o.verify_bodies_on_open = true;
  o.shards = config.cache.shards;
  // The config loader validated these, so the parameters are in range.
  o.filter_params = *filters::params_for_load(config::filter_expected_entries(config),
                                              config.filter.bits_per_entry, config.filter.hashes);
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
  auto store = Store::open(store_options(config, log));
  if (!store) {
    log.error("cannot open the cache store at " + config.cache.disk.path.string() + ": " +
              store.error().message());
    return 1;
  }
  const StoreStats loaded = (*store)->stats();
  log.info("cache store ready: " + std::to_string(loaded.objects) + " objects (" +
           std::to_string(loaded.disk_bytes) + " bytes on disk)");
  CacheService cache(**store, cache_policy(config));
  Server server(config, config_path, log, access_log, &cache);
  if (!server.start()) return 1;
  server.run();  // unblocks them once its handlers are in place
  return 0;
}

}  // namespace sumcache::daemon
