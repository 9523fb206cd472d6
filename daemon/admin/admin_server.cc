#include "daemon/admin/admin_server.h"

#include <pthread.h>

#include "daemon/admin/admin_session.h"
#include "daemon/admin/stats_collect.h"
#include "daemon/net/listener.h"

namespace sumcache::daemon {
namespace {

// Enough for a dashboard, a scraper and an operator's shell at once; more
// from the allowed networks would only be an accident or an attack.
constexpr std::uint32_t kMaxSessions = 64;

void log_full(AdminContext& context, std::string_view outcome) {
  const auto held = context.full_log.admit(LogLimiter::Clock::now());
  if (!held) return;
  std::string line =
      "admin: " + std::to_string(kMaxSessions) + " sessions open; " + std::string(outcome);
  if (*held > 0) line += " (" + std::to_string(*held) + " more since the last line)";
  context.shared.log.warn(line);
}

}  // namespace

AdminServer::AdminServer(ProxyShared& shared, CacheService* cache, std::vector<Worker*> workers)
    : io_(std::make_unique<asio::io_context>(1)),
      acceptor_(std::make_unique<tcp::acceptor>(*io_)),
      context_(shared, cache, std::move(workers)) {}

AdminServer::~AdminServer() {
  stop();
  acceptor_.reset();
  io_.reset();
}

error_code AdminServer::listen(const tcp::endpoint& endpoint, tcp::endpoint& bound,
                               std::string& failed_step) {
  if (auto ec = open_acceptor(*acceptor_, endpoint, false, failed_step)) return ec;
  error_code ec;
  bound = acceptor_->local_endpoint(ec);
  if (ec) return failed_step = "getsockname", ec;
  accept_site_ = std::make_unique<AcceptSite>("admin listener " + endpoint_text(bound),
                                              context_.shared.log, context_.accept_failures);
  return ec;
}

void AdminServer::start() {
  asio::co_spawn(*io_,
                 accept_connections(*acceptor_, *accept_site_,
                                    [this](tcp::socket socket) { admit(std::move(socket)); }),
                 asio::detached);
  asio::co_spawn(*io_, sample_loop(), asio::detached);
  thread_ = std::thread([this] {
    pthread_setname_np(pthread_self(), "sc-admin");
    io_->run();
  });
}

void AdminServer::stop() {
  if (!io_) return;
  io_->stop();
  if (thread_.joinable()) thread_.join();
}

void AdminServer::admit(tcp::socket socket) {
  // At the cap, a new connection (a health check) still gets in: the
  // session that has waited longest for its client is closed instead.
  // Only when every session is busy answering is the new one closed.
  if (context_.sessions >= kMaxSessions) {
    if (context_.waiting.empty()) {
      log_full(context_, "every one busy; new connection closed");
      return;
    }
    AdminWaiting& oldest = context_.waiting.front();
    oldest.unlink();
    oldest.stream.cancel();
    ++context_.sessions_closed;
    log_full(context_, "closed the one idle longest to admit a new connection");
  }
  asio::co_spawn(*io_, serve_admin_client(context_, std::move(socket)), asio::detached);
}

// Once a second: the cumulative ratio counters into the 1 s ring.
awaitable<void> AdminServer::sample_loop() {
  asio::steady_timer timer(*io_);
  auto next = std::chrono::steady_clock::now();
  for (;;) {
    context_.window.sample(context_.now_seconds(), summed_window_totals(context_.workers));
    next += std::chrono::seconds(1);
    timer.expires_at(next);
    auto [ec] = co_await timer.async_wait(use_nothrow);
    if (ec) co_return;
  }
}

}  // namespace sumcache::daemon
