#include "daemon/cache/disk_fill_sink.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <system_error>

#include "daemon/cache/store_io_wait.h"

namespace sumcache::daemon {

// Owned jointly by the sink and the pool job using it: a write that outlives
// its timeout still has the fill and the bytes.
struct DiskFillSink::Shared {
  std::unique_ptr<DiskFill> fill;
  std::string buffer;  // up to kFillBuffer bytes not yet written
  std::string key;     // for the log
};

std::optional<std::uint64_t> declared_length(const HeaderList& fields) {
  const auto value = joined_value(fields, "Content-Length");
  if (!value || value->empty()) return std::nullopt;
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(value->data(), value->data() + value->size(), n);
  if (ec != std::errc{} || end != value->data() + value->size()) return std::nullopt;
  return n;
}

bool fills_to_disk(std::optional<std::uint64_t> content_length, bool has_disk_tier,
                   std::uint64_t memory_room) {
  return has_disk_tier && content_length && *content_length > memory_room;
}

DiskFillSink::DiskFillSink(Store& store, std::shared_ptr<Shared> shared,
                           std::chrono::milliseconds timeout)
    : store_(store), shared_(std::move(shared)), timeout_(timeout) {}

awaitable<std::unique_ptr<DiskFillSink>> DiskFillSink::begin(Store& store, StoredObject head_only,
                                                             std::chrono::milliseconds timeout) {
  auto shared = std::make_shared<Shared>();
  shared->key = head_only.key;
  std::function<bool()> open = [&store, shared,
                                object = std::make_shared<StoredObject>(std::move(head_only))] {
    auto fill = store.begin_disk_fill(std::move(*object));
    if (!fill) return false;
    shared->fill = std::move(fill).value();
    return true;
  };
  auto begun = co_await run_on_store_io(store, timeout, std::move(open));
  if (!begun) {
    // The fill may still begin on the pool; the job's copy of `shared` drops it there.
    store.note_fill_error(shared->key, std::make_error_code(std::errc::timed_out));
    co_return nullptr;
  }
  if (!*begun) co_return nullptr;
  shared->buffer.reserve(kFillBuffer);
  co_return std::unique_ptr<DiskFillSink>(new DiskFillSink(store, std::move(shared), timeout));
}

DiskFillSink::~DiskFillSink() {
  // The DiskFill's destructor removes its temp file: file I/O, so on the pool.
  store_.post_io([shared = std::move(shared_)] {});
}

awaitable<bool> DiskFillSink::take(std::string_view bytes, bool done) {
  while (open_ && !bytes.empty()) {
    const std::size_t n = std::min(bytes.size(), kFillBuffer - shared_->buffer.size());
    shared_->buffer.append(bytes.data(), n);
    bytes.remove_prefix(n);
    if (shared_->buffer.size() == kFillBuffer && !co_await flush(false)) open_ = false;
  }
  if (open_ && done) {
    co_await flush(true);
    open_ = false;
  }
  co_return open_;
}

awaitable<bool> DiskFillSink::flush(bool commit) {
  std::function<bool()> write = [shared = shared_, commit] {
    if (!shared->buffer.empty() && shared->fill->append(shared->buffer)) return false;
    shared->buffer.clear();
    return !commit || !shared->fill->commit();
  };
  auto ok = co_await run_on_store_io(store_, timeout_, std::move(write));
  if (!ok) store_.note_fill_error(shared_->key, std::make_error_code(std::errc::timed_out));
  co_return ok&&* ok;
}

}  // namespace sumcache::daemon
