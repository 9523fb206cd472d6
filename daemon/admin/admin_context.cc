#include "daemon/admin/admin_context.h"

#include "daemon/cache/cache_service.h"

namespace sumcache::daemon {

PeerService* AdminContext::peers() const { return cache != nullptr ? cache->peers() : nullptr; }

}  // namespace sumcache::daemon
