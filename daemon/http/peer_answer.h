#pragma once
// How a peer's answer to an only-if-cached request counts (docs/peers.md,
// docs/interop.md): the peer's stored copy (a hit, whatever its status), a
// false hit (its summary or digest claimed a key it does not hold), or an
// error of the peer's own.

#include <string_view>

namespace sumcache::daemon {

enum class PeerAnswer { hit, false_hit, error };

// `status`, and `x_cache`: the last X-Cache field of the answer (the asked
// peer's own: a proxy appends its field after those of the caches behind
// it), empty when none.
//   504 Gateway Timeout: the only-if-cached miss (RFC 9111 §5.2.1.7);
//   X-Cache "MISS from NAME": Squid's TCP_MISS, an answer not from its store;
//   X-Cache "ERROR": sumcache's own refusal (not a peer, draining, a loop).
PeerAnswer classify_peer_answer(unsigned status, std::string_view x_cache);

}  // namespace sumcache::daemon
