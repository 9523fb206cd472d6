#include "daemon/cache/disk_hit.h"

#include <algorithm>
#include <array>
#include <functional>
#include <memory>
#include <vector>

#include "daemon/cache/store_io_wait.h"
#include "daemon/store/store_error.h"

namespace sumcache::daemon {
namespace {

// Owned jointly by the coroutine and the pool job reading into `chunk`: a
// read that outlives its timeout still has both.
struct DiskStream {
  BodyReader reader;
  std::vector<char> chunk;
};

}  // namespace

awaitable<unsigned> write_disk_hit(ClientConnection& client, const HitRequest& request,
                                   const StoredObject& object, Store& store, BodyReader reader,
                                   std::chrono::seconds age, std::string_view x_cache) {
  const PerResponseFields fields(request, client, age, x_cache);
  const HitPlan plan = plan_hit(request, object, reader.size());
  client.stream.expires_after(request.write_timeout);
  const std::array<asio::const_buffer, 2> head{asio::buffer(plan.head(object, request)),
                                               asio::buffer(fields.view())};
  if (!hit_sent(client, co_await asio::async_write(client.stream, head, transfer_all_at_once,
                                                   use_nothrow))) {
    co_return 0U;
  }
  if (plan.length == 0) co_return plan.status;
  auto stream = std::make_shared<DiskStream>(
      DiskStream{std::move(reader), std::vector<char>(static_cast<std::size_t>(
                                        std::min<std::uint64_t>(kDiskChunk, plan.length)))});
  const std::uint64_t end = plan.first + plan.length;
  for (std::uint64_t offset = plan.first; offset < end;) {
    const auto want =
        static_cast<std::size_t>(std::min<std::uint64_t>(stream->chunk.size(), end - offset));
    std::function<Result<std::size_t>()> read = [stream, offset, want] {
      return stream->reader.read(offset, std::span<char>(stream->chunk.data(), want));
    };
    auto got = co_await run_on_store_io(store, request.write_timeout, std::move(read));
    std::error_code ec;
    if (!got) {
      ec = std::make_error_code(std::errc::timed_out);
    } else if (!*got) {
      ec = got->error();
    } else if (**got != want) {
      ec = make_error_code(StoreErrc::truncated);
    }
    if (ec) {
      store.note_stream_error(object.key, ec);
      client.keep_alive = false;
      co_return plan.status;
    }
    client.stream.expires_after(request.write_timeout);
    if (!hit_sent(client, co_await asio::async_write(client.stream,
                                                     asio::buffer(stream->chunk.data(), want),
                                                     transfer_all_at_once, use_nothrow))) {
      co_return 0U;
    }
    offset += want;
  }
  co_return plan.status;
}

}  // namespace sumcache::daemon
