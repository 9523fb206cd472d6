// delay_relay: the links of bench/cluster/scale.py. This kernel has no netem, so
// every node-to-node, node-to-Redis and node-to-origin path crosses this relay,
// which holds each TCP chunk and each UDP datagram back a fixed one-way delay.
//
//   delay_relay [--tcp ADDR:PORT=TARGET/DELAY_MS]... [--udp ADDR:PORT=REAL]...
//               [--udp-delay-ms D]
//
// A node's relay face is an address of its own on loopback (127.0.1.N) with the
// node's own port numbers, so a peer list or a Redis member record that names
// the face reaches the node only through the relay.
// TCP: a connection accepted on ADDR:PORT is connected to 127.0.0.1:TARGET after 2 x
// DELAY (the handshake's round trip), and each chunk read on either side is written to
// the other DELAY after it was read, never before the connection is up + DELAY: so a
// first request arrives 3 x DELAY after the client's connect, as over a real link.
// UDP (ICP): one socket per node, ADDR:PORT fronting the node's REAL port on 127.0.0.1.
// A datagram that arrives on node d's face from node s's real port is sent to d's real
// port from s's face, D later: each node sees its peers at their faces, which is what
// its peers[] lists, and ICP's check of the sender's address and port holds.
// SIGTERM or SIGINT: prints its counters as one JSON line on stdout and exits.
// Single-threaded.
#include <boost/asio.hpp>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <iostream>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace asio = boost::asio;
using asio::awaitable;
using asio::ip::tcp;
using asio::ip::udp;
using Clock = std::chrono::steady_clock;
using std::chrono::microseconds;
constexpr auto use_nothrow = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t kChunk = 64 * 1024;

struct Stats {
  std::uint64_t tcp_connections = 0;
  std::uint64_t tcp_connect_failures = 0;
  std::uint64_t tcp_chunks = 0;
  std::uint64_t tcp_bytes = 0;
  std::uint64_t udp_datagrams = 0;
  std::uint64_t udp_bytes = 0;
  std::uint64_t udp_unknown_sender = 0;
  std::uint64_t udp_send_errors = 0;
  // How late a delivery was against its due time: whether the relay keeps up.
  std::uint64_t late_over_1ms = 0;
  std::int64_t late_max_us = 0;
  double late_sum_us = 0;
  std::uint64_t deliveries = 0;

  void delivered(Clock::time_point due) {
    const auto late = std::chrono::duration_cast<microseconds>(Clock::now() - due).count();
    ++deliveries;
    late_sum_us += static_cast<double>(late);
    late_max_us = std::max(late_max_us, static_cast<std::int64_t>(late));
    if (late > 1000) ++late_over_1ms;
  }
};
Stats counters;

// Wakes one waiting coroutine: a timer that never expires, cancelled on news.
awaitable<void> wait_for_news(asio::steady_timer& t) {
  t.expires_at(Clock::time_point::max());
  co_await t.async_wait(use_nothrow);
}

awaitable<void> sleep_until(Clock::time_point when) {
  if (Clock::now() >= when) co_return;
  asio::steady_timer t(co_await asio::this_coro::executor, when);
  co_await t.async_wait(use_nothrow);
}

// ---- TCP ----

struct Chunk {
  Clock::time_point due;
  std::vector<char> bytes;  // empty: the sender's end closed
};

struct Direction {
  explicit Direction(asio::any_io_executor ex) : news(ex) {}
  std::deque<Chunk> queue;
  asio::steady_timer news;
};

struct Session : std::enable_shared_from_this<Session> {
  Session(tcp::socket c, Clock::duration d)
      : client(std::move(c)),
        server(client.get_executor()),
        delay(d),
        up_news(client.get_executor()),
        to_server(client.get_executor()),
        to_client(client.get_executor()) {}

  void close() {
    if (closed) return;
    closed = true;
    boost::system::error_code ignored;
    client.close(ignored);
    server.close(ignored);
    to_server.news.cancel();
    to_client.news.cancel();
    up_news.cancel();
  }

  tcp::socket client;
  tcp::socket server;
  Clock::duration delay;
  Clock::time_point up_at{};  // set once the connection to the target is up
  bool up = false;
  bool closed = false;
  int directions_done = 0;
  asio::steady_timer up_news;
  Direction to_server;
  Direction to_client;
};

awaitable<void> pump_in(std::shared_ptr<Session> s, tcp::socket& from, Direction& dir) {
  std::vector<char> buffer(kChunk);
  for (;;) {
    auto [ec, n] = co_await from.async_read_some(asio::buffer(buffer), use_nothrow);
    const auto due = Clock::now() + s->delay;
    if (ec) {
      dir.queue.push_back({due, {}});
      dir.news.cancel();
      co_return;
    }
    dir.queue.push_back({due, std::vector<char>(buffer.begin(), buffer.begin() + n)});
    dir.news.cancel();
  }
}

awaitable<void> pump_out(std::shared_ptr<Session> s, tcp::socket& to, Direction& dir) {
  while (!s->up && !s->closed) co_await wait_for_news(s->up_news);
  for (;;) {
    while (dir.queue.empty() && !s->closed) co_await wait_for_news(dir.news);
    if (s->closed) co_return;
    const auto due = std::max(dir.queue.front().due, s->up_at + s->delay);
    co_await sleep_until(due);
    if (s->closed) co_return;
    Chunk chunk = std::move(dir.queue.front());
    dir.queue.pop_front();
    counters.delivered(due);
    if (chunk.bytes.empty()) {
      boost::system::error_code ignored;
      to.shutdown(tcp::socket::shutdown_send, ignored);
      co_return;
    }
    auto [ec, n] = co_await asio::async_write(to, asio::buffer(chunk.bytes), use_nothrow);
    if (ec) {
      s->close();
      co_return;
    }
    ++counters.tcp_chunks;
    counters.tcp_bytes += n;
  }
}

awaitable<void> run_session(std::shared_ptr<Session> s, std::uint16_t target) {
  auto ex = co_await asio::this_coro::executor;
  const auto accepted = Clock::now();
  ++counters.tcp_connections;
  asio::co_spawn(ex, pump_in(s, s->client, s->to_server), asio::detached);
  co_await sleep_until(accepted + 2 * s->delay);
  auto [ec] = co_await s->server.async_connect(
      tcp::endpoint(asio::ip::address_v4::loopback(), target), use_nothrow);
  if (ec) {
    ++counters.tcp_connect_failures;
    s->close();
    co_return;
  }
  boost::system::error_code ignored;
  s->server.set_option(tcp::no_delay(true), ignored);
  s->up_at = Clock::now();
  s->up = true;
  s->up_news.cancel();
  asio::co_spawn(ex, pump_in(s, s->server, s->to_client), asio::detached);
  // Each direction ends when its sender closed its side (or on an error); the
  // session closes when both have.
  auto finish = [s](std::exception_ptr) {
    if (++s->directions_done == 2) s->close();
  };
  asio::co_spawn(ex, pump_out(s, s->server, s->to_server), finish);
  asio::co_spawn(ex, pump_out(s, s->client, s->to_client), finish);
}

awaitable<void> accept_loop(tcp::acceptor acceptor, std::uint16_t target, Clock::duration delay) {
  auto ex = co_await asio::this_coro::executor;
  for (;;) {
    auto [ec, socket] = co_await acceptor.async_accept(use_nothrow);
    if (ec) {
      if (ec == asio::error::operation_aborted) co_return;
      continue;  // a connection's own failure, or out of descriptors: try the next
    }
    boost::system::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    auto s = std::make_shared<Session>(std::move(socket), delay);
    asio::co_spawn(ex, run_session(s, target), asio::detached);
  }
}

// ---- UDP ----

struct Datagram {
  Clock::time_point due;
  std::size_t via;  // the sending node's relay socket
  udp::endpoint to;
  std::vector<std::uint8_t> bytes;
};

struct UdpRelay {
  explicit UdpRelay(asio::any_io_executor ex) : news(ex) {}
  std::vector<udp::socket> sockets;  // node i's relay socket
  std::vector<udp::endpoint> real;   // node i's own ICP endpoint
  std::unordered_map<std::uint16_t, std::size_t> by_real_port;
  std::deque<Datagram> queue;  // one delay for all: deadlines stay in order
  asio::steady_timer news;
  Clock::duration delay{};
};

awaitable<void> udp_receive(UdpRelay& r, std::size_t node) {
  std::vector<std::uint8_t> buffer(65536);
  udp::endpoint from;
  for (;;) {
    auto [ec, n] =
        co_await r.sockets[node].async_receive_from(asio::buffer(buffer), from, use_nothrow);
    if (ec) {
      if (ec == asio::error::operation_aborted) co_return;
      continue;
    }
    const auto sender = r.by_real_port.find(from.port());
    if (sender == r.by_real_port.end() || !from.address().is_loopback()) {
      ++counters.udp_unknown_sender;
      continue;
    }
    r.queue.push_back({Clock::now() + r.delay, sender->second, r.real[node],
                       std::vector<std::uint8_t>(buffer.begin(), buffer.begin() + n)});
    r.news.cancel();
  }
}

awaitable<void> udp_send(UdpRelay& r) {
  for (;;) {
    while (r.queue.empty()) co_await wait_for_news(r.news);
    const auto due = r.queue.front().due;
    co_await sleep_until(due);
    Datagram d = std::move(r.queue.front());
    r.queue.pop_front();
    counters.delivered(due);
    boost::system::error_code ec;
    r.sockets[d.via].send_to(asio::buffer(d.bytes), d.to, 0, ec);
    if (ec) {
      ++counters.udp_send_errors;
      continue;
    }
    ++counters.udp_datagrams;
    counters.udp_bytes += d.bytes.size();
  }
}

// ---- main ----

bool parse_port(std::string_view text, std::uint16_t& out) {
  unsigned value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value == 0 || value > 65535) {
    return false;
  }
  out = static_cast<std::uint16_t>(value);
  return true;
}

// ADDR:PORT, an IPv4 literal.
bool parse_face(std::string_view text, asio::ip::address_v4& address, std::uint16_t& port) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || !parse_port(text.substr(colon + 1), port)) return false;
  boost::system::error_code ec;
  address = asio::ip::make_address_v4(std::string(text.substr(0, colon)), ec);
  return !ec;
}

struct TcpRoute {
  asio::ip::address_v4 address;
  std::uint16_t listen = 0;
  std::uint16_t target = 0;
  double delay_ms = 0;
};

int usage(const std::string& why) {
  std::cerr
      << "delay_relay: " << why
      << "\nusage: delay_relay [--tcp ADDR:PORT=TARGET/DELAY_MS]... [--udp ADDR:PORT=REAL]... "
         "[--udp-delay-ms D]\n";
  return 2;
}

void print_stats() {
  const auto& s = counters;
  std::printf(
      "{\"tcp_connections\": %llu, \"tcp_connect_failures\": %llu, \"tcp_chunks\": %llu, "
      "\"tcp_bytes\": %llu, \"udp_datagrams\": %llu, \"udp_bytes\": %llu, "
      "\"udp_unknown_sender\": %llu, \"udp_send_errors\": %llu, \"deliveries\": %llu, "
      "\"late_over_1ms\": %llu, \"late_max_us\": %lld, \"late_mean_us\": %.1f}\n",
      static_cast<unsigned long long>(s.tcp_connections),
      static_cast<unsigned long long>(s.tcp_connect_failures),
      static_cast<unsigned long long>(s.tcp_chunks), static_cast<unsigned long long>(s.tcp_bytes),
      static_cast<unsigned long long>(s.udp_datagrams),
      static_cast<unsigned long long>(s.udp_bytes),
      static_cast<unsigned long long>(s.udp_unknown_sender),
      static_cast<unsigned long long>(s.udp_send_errors),
      static_cast<unsigned long long>(s.deliveries),
      static_cast<unsigned long long>(s.late_over_1ms), static_cast<long long>(s.late_max_us),
      s.deliveries ? s.late_sum_us / static_cast<double>(s.deliveries) : 0.0);
  std::fflush(stdout);
}

int main(int argc, char** argv) {
  std::vector<TcpRoute> tcp_routes;
  struct UdpFace {
    asio::ip::address_v4 address;
    std::uint16_t port = 0;
    std::uint16_t real = 0;
  };
  std::vector<UdpFace> udp_nodes;
  double udp_delay_ms = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (i + 1 >= argc) return usage("missing a value after " + std::string(arg));
    const std::string_view value = argv[++i];
    if (arg == "--tcp") {
      const auto eq = value.find('=');
      const auto slash = value.find('/');
      TcpRoute r;
      if (eq == std::string_view::npos || slash == std::string_view::npos || slash < eq ||
          !parse_face(value.substr(0, eq), r.address, r.listen) ||
          !parse_port(value.substr(eq + 1, slash - eq - 1), r.target)) {
        return usage("bad --tcp " + std::string(value));
      }
      r.delay_ms = std::stod(std::string(value.substr(slash + 1)));
      if (r.delay_ms < 0 || r.delay_ms > 10000) return usage("delay out of 0..10000 ms");
      tcp_routes.push_back(r);
    } else if (arg == "--udp") {
      const auto eq = value.find('=');
      UdpFace face;
      if (eq == std::string_view::npos ||
          !parse_face(value.substr(0, eq), face.address, face.port) ||
          !parse_port(value.substr(eq + 1), face.real)) {
        return usage("bad --udp " + std::string(value));
      }
      udp_nodes.push_back(face);
    } else if (arg == "--udp-delay-ms") {
      udp_delay_ms = std::stod(std::string(value));
      if (udp_delay_ms < 0 || udp_delay_ms > 10000) return usage("delay out of 0..10000 ms");
    } else {
      return usage("unknown option " + std::string(arg));
    }
  }
  const auto to_duration = [](double ms) {
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double, std::milli>(ms));
  };

  asio::io_context io(1);
  const auto loopback = asio::ip::address_v4::loopback();
  try {
    for (const TcpRoute& r : tcp_routes) {
      tcp::acceptor acceptor(io, tcp::endpoint(r.address, r.listen));
      asio::co_spawn(io, accept_loop(std::move(acceptor), r.target, to_duration(r.delay_ms)),
                     asio::detached);
    }
  } catch (const boost::system::system_error& e) {
    std::cerr << "delay_relay: cannot listen: " << e.what() << "\n";
    return 1;
  }
  UdpRelay udp_relay(io.get_executor());
  udp_relay.delay = to_duration(udp_delay_ms);
  try {
    for (const UdpFace& f : udp_nodes) {
      udp_relay.by_real_port[f.real] = udp_relay.sockets.size();
      udp_relay.sockets.emplace_back(io, udp::endpoint(f.address, f.port));
      udp_relay.sockets.back().set_option(asio::socket_base::receive_buffer_size(1 << 20));
      udp_relay.real.emplace_back(loopback, f.real);
    }
  } catch (const boost::system::system_error& e) {
    std::cerr << "delay_relay: cannot bind udp: " << e.what() << "\n";
    return 1;
  }
  for (std::size_t i = 0; i < udp_relay.sockets.size(); ++i) {
    asio::co_spawn(io, udp_receive(udp_relay, i), asio::detached);
  }
  if (!udp_relay.sockets.empty()) asio::co_spawn(io, udp_send(udp_relay), asio::detached);

  asio::signal_set signals(io, SIGTERM, SIGINT);
  signals.async_wait([&io](const boost::system::error_code&, int) {
    print_stats();
    io.stop();
  });
  std::printf("ready\n");
  std::fflush(stdout);
  io.run();
  return 0;
}
