#include "daemon/net/accept_policy.h"

#include <algorithm>
#include <cerrno>

namespace sumcache::daemon {

const char* to_string(AcceptFailure failure) {
  switch (failure) {
    case AcceptFailure::resources:
      return "resources";
    case AcceptFailure::connection:
      return "connection";
    case AcceptFailure::other:
      return "other";
  }
  return "other";
}

AcceptFailure classify_accept_errno(int value) {
  switch (value) {
    case EMFILE:
    case ENFILE:
    case ENOBUFS:
    case ENOMEM:
      return AcceptFailure::resources;
    // accept(2): these concern the one connection taken off the queue; Linux also passes up
    // pending network errors of the new socket (ENETDOWN, EHOSTUNREACH, ...) to be retried.
    case ECONNABORTED:
    case ECONNRESET:
    case EPROTO:
    case EPERM:
    case ENETDOWN:
    case ENOPROTOOPT:
    case EHOSTDOWN:
    case ENONET:
    case EHOSTUNREACH:
    case EOPNOTSUPP:
    case ENETUNREACH:
    case ETIMEDOUT:
    case EAGAIN:
    case EINTR:
      return AcceptFailure::connection;
    default:
      return AcceptFailure::other;
  }
}

AcceptAction accept_action(int errno_value, bool acceptor_open) {
  if (!acceptor_open || errno_value == ECANCELED) return AcceptAction::stop;
  return classify_accept_errno(errno_value) == AcceptFailure::connection ? AcceptAction::retry
                                                                         : AcceptAction::back_off;
}

std::chrono::milliseconds next_pause(std::chrono::milliseconds previous,
                                     const AcceptBackoff& backoff) {
  if (previous <= std::chrono::milliseconds::zero()) return std::min(backoff.first, backoff.max);
  return std::min(previous * 2, backoff.max);
}

}  // namespace sumcache::daemon
