#pragma once
// The cache's side of the proxy (RFC 9111): GET and HEAD answered from the
// store when fresh; stale ones revalidated (in the background within
// stale-while-revalidate, or served on error within stale-if-error); misses
// fetched once per key at a time (collapsed forwarding) and stored while they
// stream to the client; stored keys invalidated after unsafe requests, and
// some POST responses stored for later GETs.

#include <atomic>
#include <memory>

#include "daemon/cache/inflight_table.h"
#include "daemon/cache/partial_table.h"
#include "daemon/exchange/forward_flow.h"
#include "daemon/http/freshness.h"
#include "daemon/http/use_decision.h"
#include "daemon/log/access_log.h"
#include "daemon/log/log_limiter.h"
#include "daemon/peer/purge_reach.h"
#include "daemon/store/store.h"

namespace sumcache::daemon {

struct CachePolicy {
  std::uint64_t max_object_bytes = 64 * 1024 * 1024;  // the store's limit: fixed at start
};

// Heuristic freshness from the running config (it changes on SIGHUP).
HeuristicPolicy heuristic_policy(const config::Config& config);

struct CacheRequest;
struct Candidate;
class PeerService;
class SquidDigestService;

// Marks a request one node sends another for an object its summary claims
// (value: the sender's node id). Such a request is answered from the cache
// alone, never forwarded to a peer or the origin: no loops (docs/peers.md).
// An owner fetch is the one exception: it may reach the origin, never a peer.
inline constexpr const char* kPeerRequestHeader = "X-Sumcache-Peer";

// What a verified peer request may have (docs/peers.md): the store alone, or,
// signed as an owner fetch (cluster.miss_policy "owner"), this node's miss
// path up to the origin, but never another peer or owner.
enum class PeerScope { none, store_only, owner_fetch };

class CacheService {
 public:
  CacheService(Store& store, CachePolicy policy) : store_(store), policy_(policy) {}

  // Returns the status sent; sets record.result. `peer`: a verified peer
  // request; store_only is answered from the store alone whatever its
  // Cache-Control says.
  awaitable<unsigned> serve(WorkerContext& worker, const Settings& settings,
                            ClientExchange& client, const Route& route, AccessRecord& record,
                            PeerScope peer = PeerScope::none);
  // A request the cache does not answer (any method but GET and HEAD), sent
  // on by forward_request. A 2xx or 3xx to an unsafe method invalidates
  // first (RFC 9111 §4.4); then a POST response whose Content-Location is the
  // target, with explicit freshness, is stored for later GETs of the target
  // (RFC 9110 §9.3.3) when its body fits the memory tier. Returns the status sent.
  awaitable<unsigned> forward_uncached(WorkerContext& worker, const Settings& settings,
                                       ClientExchange& client, const Route& route);
  // RFC 9111 §4.4, after an unsafe method got a 2xx or 3xx: here and, with
  // peers, on every peer (docs/peers.md, "Cluster-wide invalidation").
  void invalidate_after_unsafe(std::string_view method, const Route& route,
                               const ForwardResult& result);
  struct Purged {
    std::size_t removed = 0;     // variants removed here
    std::uint64_t sequence = 0;  // the purge's sequence to the peers; 0: not sent
  };
  // Removes every variant stored under key, and sends the purge to every peer.
  Purged purge(std::string_view key);
  // Removes every object tagged `tag` (cache.tag_header) / every object whose
  // key starts with `prefix`, and sends the purge to every peer.
  Purged purge_tag(std::string_view tag);
  Purged purge_prefix(std::string_view prefix);
  // Where purge `sequence` has taken effect: waits for the peers'
  // acknowledgements up to cluster.peer_timeout_ms, on `executor`.
  awaitable<PurgeReach> await_reach(std::uint64_t sequence, asio::any_io_executor executor);
  Store& store() { return store_; }
  // Misses ask these peers before the origin; null: no cluster.
  void set_peers(PeerService* peers) { peers_ = peers; }
  PeerService* peers() const { return peers_; }
  // This node's Squid digest (cluster.squid_digest); null when disabled.
  void set_squid_digest(SquidDigestService* digest) { squid_digest_ = digest; }
  SquidDigestService* squid_digest() const { return squid_digest_; }
  // 206s from upstream with a bad Content-Range (RFC 9110 §14.4): relayed,
  // never stored (sumcache_cache_partial_invalid_total).
  std::uint64_t partial_invalid() const { return partial_invalid_.load(std::memory_order_relaxed); }

 private:
  // The stored response for r among the memory-resident variants; the
  // disk-only ones are left in `on_disk` for find_on_disk(), which reads
  // their headers on the store's I/O pool.
  std::optional<Candidate> find_candidate(const CacheRequest& r,
                                          std::vector<DiskCandidate>& on_disk);
  awaitable<std::optional<Candidate>> find_on_disk(const CacheRequest& r,
                                                   std::vector<DiskCandidate> on_disk);
  std::optional<Candidate> pick_variant(const CacheRequest& r, std::vector<ObjectPtr>& variants);
  // decide_use, and a response this node cannot prove current (a peer's
  // purges it may have missed) is never served or handed to a peer unchecked.
  UseResult use_of(const CacheRequest& r, const Candidate& c) const;
  awaitable<unsigned> serve_stored(CacheRequest& r, const Candidate& c, std::chrono::seconds age,
                                   CacheResult result);
  awaitable<unsigned> serve_unreadable(CacheRequest& r);
  awaitable<unsigned> fetch(CacheRequest& r, const Candidate* stale, bool may_collapse);
  awaitable<unsigned> revalidate(CacheRequest& r, const Candidate& c, bool stale_if_error);
  awaitable<unsigned> relay_and_store(CacheRequest& r, std::unique_ptr<UpstreamResponse> res,
                                      CacheResult result, bool store = true);
  // The object from the first claiming peer that has it; nullopt: go to the origin.
  awaitable<std::optional<unsigned>> fetch_from_peers(CacheRequest& r);
  // cluster.miss_policy "owner": the object through the key's owner when
  // another node owns it; nullopt: this node owns it, or the owner failed.
  awaitable<std::optional<unsigned>> fetch_from_owner(CacheRequest& r);
  void revalidate_in_background(CacheRequest& r, const Candidate& c);
  // partial_serve.cc: a Range request answered 206 from a fresh stored
  // partial response that holds the range (RFC 9111 §3.3); nullopt: not held.
  awaitable<std::optional<unsigned>> serve_partial(CacheRequest& r);
  // Whether a 206 to r is kept once its body arrives (§3.3, RFC 9110 §14.4):
  // a bad Content-Range is a degraded path, counted and logged.
  std::optional<PartialFill> partial_to_keep(const CacheRequest& r, const ResponseFacts& facts);
  void note_invalid_partial(WorkerContext& worker, const std::string& key, std::string_view why);
  // Keeps it, combined with the stored ranges (§3.4); ranges that cover the
  // whole representation become a complete 200 in the store.
  PartialTable::Added keep_partial(CacheRequest& r, const ResponseFacts& facts, PartialFill fill,
                                   std::string body);
  // partial_complete.cc: a request for more than a stored partial response
  // holds asks upstream for only the missing part, with If-Range on the
  // entry's strong validator, and answers from the combination (§3.4);
  // nullopt: no entry to complete, and the request goes on as it came.
  awaitable<std::optional<unsigned>> complete_partial(CacheRequest& r);

  Store& store_;
  CachePolicy policy_;
  InflightTable inflight_;
  PartialTable partials_;
  std::atomic<std::uint64_t> partial_invalid_{0};
  LogLimiter partial_log_;  // one line a second at most for those
  PeerService* peers_ = nullptr;
  SquidDigestService* squid_digest_ = nullptr;
};

}  // namespace sumcache::daemon
