#pragma once
// What a listener does when accept() fails: the one policy every listener follows (the proxy
// ports, the peer object port, the admin port, the peer listener). Pure: no sockets.
//
// A shortage of descriptors or memory (EMFILE, ENFILE, ENOBUFS, ENOMEM) leaves the connection
// in the kernel's queue and the listening socket readable, so an accept retried at once fails
// again at once: a loop at full CPU that starves the connections it would free descriptors for.
// So the listener pauses, doubling the pause up to a cap while the shortage lasts, as nginx
// does (it disables accept events for 500 ms); the first success resets the pause. A failure
// that belongs to one connection only (the client reset it while queued, a firewall refused it)
// is retried at once: the next connection in the queue is unaffected.

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>

namespace sumcache::daemon {

enum class AcceptAction : std::uint8_t {
  retry,     // this connection's own failure: accept the next at once
  back_off,  // a shortage (or an error not known to be harmless): pause, then accept again
  stop,      // the acceptor was closed (drain, stop): the loop ends
};

enum class AcceptFailure : std::uint8_t { resources, connection, other };
inline constexpr std::size_t kAcceptFailureKinds = 3;
const char* to_string(AcceptFailure failure);
using AcceptCounts = std::array<std::uint64_t, kAcceptFailureKinds>;  // by AcceptFailure

// From accept(2)'s errno; an error that is not an errno value is `other`.
AcceptFailure classify_accept_errno(int value);
// ECANCELED (the acceptor closed under a pending accept) or a closed acceptor: stop.
AcceptAction accept_action(int errno_value, bool acceptor_open);

struct AcceptBackoff {
  std::chrono::milliseconds first{10};
  std::chrono::milliseconds max{1000};
};

// The pause after `previous` (zero: the first failure since a success).
std::chrono::milliseconds next_pause(std::chrono::milliseconds previous,
                                     const AcceptBackoff& backoff);

}  // namespace sumcache::daemon
