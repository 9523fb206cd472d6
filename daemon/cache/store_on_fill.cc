#include "daemon/cache/store_on_fill.h"

#include <memory>

#include "daemon/cache/cache_service.h"
#include "daemon/log/log_limiter.h"

namespace sumcache::daemon {

void store_fill(WorkerContext& worker, Store& store, const Settings& settings, FillTarget target,
                const ResponseFacts& response, std::string body) {
  auto [head, meta] =
      stored_head_and_meta(response, body.size(), settings.via, heuristic_policy(settings.config),
                           settings.config.cache.tag_header);
  const std::uint64_t size = body.size();
  const auto ec = store.insert(
      StoredObject{target.key, std::move(target.variant), target.hash, std::move(meta),
                   std::move(head), std::make_shared<const std::string>(std::move(body)), size});
  if (!ec) return;
  ProxyShared& shared = worker.shared;
  worker.stats.fills_not_stored.fetch_add(1, std::memory_order_relaxed);
  const auto held_back = shared.fill_log.admit(LogLimiter::Clock::now());
  if (!held_back) return;
  shared.log.warn(
      "not stored " + target.key.substr(0, 256) + ": " + ec.message() +
      (*held_back > 0 ? " (" + std::to_string(*held_back) + " more since the last)" : ""));
}

}  // namespace sumcache::daemon
