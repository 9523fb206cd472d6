#include "tests/support/test_origin.h"

#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <thread>

#include "tests/support/asio_support.h"
#include "tests/support/origin_session.h"

namespace sumcache::testing {

namespace {

using tcp = asio::ip::tcp;

asio::awaitable<void> accept_loop(tcp::acceptor& acceptor, asio::ssl::context* tls,
                                  const SessionConfig& config) {
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(kUseTuple);
    if (ec == asio::error::operation_aborted) co_return;
    if (ec) continue;  // the client gave up between SYN and accept: serve the next one
    // The head and the body go out in separate writes; with Nagle's algorithm the body
    // would wait for the client's delayed ACK of the head, some 40 ms a response.
    socket.set_option(tcp::no_delay(true), ec);
    // A session that throws is a bug in this library: rethrowing ends the origin's thread
    // and the test with it, instead of leaving a client waiting for its timeout.
    auto rethrow = [](const std::exception_ptr& e) {
      if (e) std::rethrow_exception(e);
    };
    if (tls) {
      asio::co_spawn(acceptor.get_executor(), serve_tls(std::move(socket), *tls, config), rethrow);
    } else {
      asio::co_spawn(acceptor.get_executor(), serve_plain(std::move(socket), config), rethrow);
    }
  }
}

}  // namespace

struct TestOrigin::Impl {
  // Declared first so that it goes last: destroying the io_context destroys the suspended
  // sessions, which close their sockets and refer to the members below.
  std::optional<asio::io_context> ioc{std::in_place};
  std::optional<asio::ssl::context> tls;
  std::optional<tcp::acceptor> acceptor;
  SessionConfig config;
  std::uint16_t port = 0;  // kept past stop(), for tests of an origin that went away
  std::thread thread;
};

TestOrigin::TestOrigin(OriginOptions options) : options_(std::move(options)) {}

TestOrigin::~TestOrigin() { stop(); }

std::error_code TestOrigin::start() {
  if (impl_) return std::make_error_code(std::errc::device_or_resource_busy);
  auto impl = std::make_unique<Impl>();
  boost::system::error_code ec;
  const auto address = asio::ip::make_address(options_.address, ec);
  if (ec || !address.is_loopback()) return std::make_error_code(std::errc::invalid_argument);
  if (options_.tls) {
    auto& tls = impl->tls.emplace(asio::ssl::context::tls_server);
    tls.use_certificate_chain_file(options_.tls->cert_chain.string(), ec);
    if (!ec)
      tls.use_private_key_file(options_.tls->private_key.string(), asio::ssl::context::pem, ec);
    if (ec) return ec;
  }
  auto& acceptor = impl->acceptor.emplace(*impl->ioc);
  const tcp::endpoint endpoint(address, options_.port);
  // A failed bind stops the start: an origin that is not listening helps no test.
  if (acceptor.open(endpoint.protocol(), ec); ec) return ec;
  if (acceptor.set_option(tcp::acceptor::reuse_address(true), ec); ec) return ec;
  if (acceptor.bind(endpoint, ec); ec) return ec;
  if (acceptor.listen(asio::socket_base::max_listen_connections, ec); ec) return ec;
  impl->port = acceptor.local_endpoint().port();
  impl->config = SessionConfig{&log_, options_.on_request, options_.io_timeout};
  asio::co_spawn(*impl->ioc, accept_loop(acceptor, impl->tls ? &*impl->tls : nullptr, impl->config),
                 asio::detached);
  impl->thread = std::thread([ioc = &*impl->ioc] { ioc->run(); });
  impl_ = std::move(impl);
  return {};
}

void TestOrigin::stop() {
  if (!impl_ || !impl_->thread.joinable()) return;
  impl_->ioc->stop();
  impl_->thread.join();
  impl_->acceptor.reset();
  impl_->ioc.reset();
}

std::uint16_t TestOrigin::port() const { return impl_ ? impl_->port : 0; }

}  // namespace sumcache::testing
