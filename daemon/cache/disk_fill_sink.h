#pragma once
// A miss whose body is larger than the memory tier takes, stored on its way to
// the client: its declared length known, the body goes to a DiskFill (the
// store's streamed file) in buffers of kFillBuffer, each written on the
// store's I/O pool while the worker goes on, and the object joins the store at
// the end (docs/store.md, "Disk-only fills"). Private to daemon/cache.

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "daemon/http/header_list.h"
#include "daemon/net/asio.h"
#include "daemon/store/store.h"

namespace sumcache::daemon {

inline constexpr std::size_t kFillBuffer = 256 * 1024;

// The response's Content-Length as received (Beast checked it); nullopt
// without one, or with a list (several equal values): no disk fill then.
std::optional<std::uint64_t> declared_length(const HeaderList& fields);

// Whether a storable response goes to disk as it streams: a disk tier, a
// declared length, and a body larger than the memory tier's room.
bool fills_to_disk(std::optional<std::uint64_t> content_length, bool has_disk_tier,
                   std::uint64_t memory_room);

class DiskFillSink {
 public:
  // null when the store cannot take it (too large for the disk budget, a
  // disk error: counted and logged by the store).
  static awaitable<std::unique_ptr<DiskFillSink>> begin(Store& store, StoredObject head_only,
                                                        std::chrono::milliseconds timeout);
  ~DiskFillSink();  // not committed: the fill is dropped (its file removed on the pool)
  DiskFillSink(const DiskFillSink&) = delete;
  DiskFillSink& operator=(const DiskFillSink&) = delete;

  // Takes the next body bytes; `done`: they are the last, and the object is
  // committed. False: the fill failed or was committed, and takes no more.
  awaitable<bool> take(std::string_view bytes, bool done);

 private:
  struct Shared;
  DiskFillSink(Store& store, std::shared_ptr<Shared> shared, std::chrono::milliseconds timeout);
  // Writes the buffer (and commits when `commit`) on the pool.
  awaitable<bool> flush(bool commit);

  Store& store_;
  std::shared_ptr<Shared> shared_;
  std::chrono::milliseconds timeout_;
  bool open_ = true;
};

}  // namespace sumcache::daemon
