#pragma once
// Runs a blocking store call (a file open, a body read, a fill write) on the
// store's I/O pool and resumes the calling coroutine on its own executor with
// the result, so that a worker never waits on the disk (docs/store.md,
// "Threads"). Private to daemon/cache.

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "daemon/net/asio.h"
#include "daemon/store/store.h"

namespace sumcache::daemon {

// The result of fn() run on the pool, or nullopt when it took longer than
// `timeout`: the caller gives up; fn still runs to its end on the pool, so
// what it uses must be owned by fn (shared_ptr captures), not by the caller.
// Callers pass a named std::function (std::move): GCC 12 mishandles a
// temporary converted to a coroutine's by-value parameter inside co_await.
template <class T>
awaitable<std::optional<T>> run_on_store_io(Store& store, std::chrono::milliseconds timeout,
                                            std::function<T()> fn) {
  // Touched on this coroutine's executor only (a worker's single thread): the
  // pool thread moves its result into a handler posted there.
  struct Wait {
    std::optional<T> result;
    asio::steady_timer* timer = nullptr;  // null once the coroutine stopped waiting
  };
  auto executor = co_await asio::this_coro::executor;
  asio::steady_timer timer(executor, timeout);
  auto wait = std::make_shared<Wait>();
  wait->timer = &timer;
  struct Forget {
    Wait& w;
    ~Forget() { w.timer = nullptr; }
  } forget{*wait};
  // One owner for fn, whichever thread lets go of it last.
  auto job = std::make_shared<std::function<T()>>(std::move(fn));
  store.post_io([job, wait, executor] {
    T result = (*job)();
    asio::post(executor, [wait, result = std::move(result)]() mutable {
      if (wait->timer == nullptr) return;
      wait->result = std::move(result);
      wait->timer->cancel();
    });
  });
  co_await timer.async_wait(use_nothrow);
  co_return std::move(wait->result);
}

}  // namespace sumcache::daemon
