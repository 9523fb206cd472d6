#pragma once
// Whether a request on the proxy port asks for this node's own Squid Cache
// Digest (docs/interop.md, "sumcache as a Squid digest sibling"). A Squid
// fetches a sibling's digest as `GET http://HOST:PORT/squid-internal-periodic/store_digest`
// (absolute-form, with Host: HOST:PORT), HOST:PORT being its cache_peer line.
// It is ours when the URL names one of our proxy listeners: an IP literal
// that reaches it, or one of cluster.squid_digest.hostnames, on a proxy
// listener's port (Squid itself checks its visible_hostname, aliases and
// http_port the same way). Any other host's URL with that path is an ordinary
// proxied URL. Pure: unit-tested without sockets.

#include <span>
#include <string>
#include <string_view>

#include "daemon/http/cache_key.h"
#include "daemon/net/destination_policy.h"

namespace sumcache::daemon {

// A cheap test on the raw request-target, before any parsing: most requests
// stop here.
bool may_be_squid_digest_target(std::string_view target);

// `proxy` holds the proxy listeners only (and the interface addresses a
// wildcard listener answers on); `hostnames` the configured extra names.
bool is_own_squid_digest(const EffectiveUri& uri, const OwnListeners& proxy,
                         std::span<const std::string> hostnames);

}  // namespace sumcache::daemon
