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

awaitable<unsigned> write_disk_hit(ClientExchange& client, const HitRequest& request,
                                   const StoredObject& object, Store& store, BodyReader reader,
                                   std::chrono::seconds age, std::string_view x_cache) {
  const PerResponseFields fields(request, client.keep_alive, age, x_cache);
  const HitPlan plan = plan_hit(request, object, reader.size());
  auto [hec, hn] = co_await client.write_response(plan.head(object, request), fields.view(), {},
                                                  {.more = plan.length > 0});
  if (hec) co_return 0U;
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
    offset += want;
    auto [ec_out, n] =
        co_await client.write_body(asio::buffer(stream->chunk.data(), want), offset == end);
    if (ec_out) co_return 0U;
  }
  co_return plan.status;
}

}  // namespace sumcache::daemon
