#pragma once
// Sends a hit whose body is only on disk and too large to read whole: the
// head first, then the body in chunks of kDiskChunk, each read on the store's
// I/O pool (never on the worker) and written before the next is read, so a
// connection holds one chunk. Reads and writes each have the request's write
// timeout. A read that fails after the head went out (an I/O error, the
// checksum found wrong at the end, a timeout) ends the connection short of
// its Content-Length (RFC 9112 §8: the client sees the truncation), counted
// and logged by the store (Store::note_stream_error); a damaged file is
// removed by its BodyReader.

#include <chrono>
#include <cstddef>

#include "daemon/cache/hit_writer.h"
#include "daemon/store/store.h"

namespace sumcache::daemon {

inline constexpr std::size_t kDiskChunk = 256 * 1024;

// Returns the status sent, or 0 when a write to the client failed.
awaitable<unsigned> write_disk_hit(ClientExchange& client, const HitRequest& request,
                                   const StoredObject& object, Store& store, BodyReader reader,
                                   std::chrono::seconds age, std::string_view x_cache);

}  // namespace sumcache::daemon
