// RedisConnection against a real redis-server (tests/support/redis_process.h)
// and against raw servers in the test for the faults that need exact bytes:
// pipelining, every reply type, binary values, AUTH, TLS, deadlines, limits.

#include "daemon/redis/redis_connection.h"

#include <boost/asio/ssl.hpp>

#include "tests/daemon/redis/redis_test_support.h"
#include "tests/support/ports.h"
#include "tests/support/redis_process.h"
#include "tests/support/test_pki.h"

namespace sumcache::daemon {
namespace {

using namespace redis_test;
using testing::RedisProcess;
using testing::RedisProcessOptions;
using Type = RedisReply::Type;

RedisOptions options_for(std::uint16_t port) {
  RedisOptions o;
  o.endpoint = {"127.0.0.1", port};
  o.connect_timeout = 2s;
  o.command_timeout = 5s;
  return o;
}

class RedisConnectionTest : public ::testing::Test {
 protected:
  void start_redis(const RedisProcessOptions& options = {}) {
    ASSERT_TRUE(RedisProcess::installed()) << "redis-server is not installed: run scripts/setup";
    const std::string why = redis_.start(options);
    ASSERT_TRUE(why.empty()) << why;
  }
  std::shared_ptr<RedisConnection> connect(RedisOptions options, error_code expect = {}) {
    auto c = std::make_shared<RedisConnection>(io_.get_executor(), std::move(options));
    const auto ec = run(io_, c->connect());
    EXPECT_TRUE(ec.has_value()) << "connect did not end";
    EXPECT_EQ(ec.value_or(asio::error::would_block), expect)
        << ec.value_or(asio::error::would_block).message();
    return c;
  }
  std::tuple<error_code, RedisReply> command(RedisConnection& c, RedisCommand args,
                                             std::chrono::milliseconds extra = {}) {
    return run(io_, c.command(std::move(args), extra))
        .value_or(std::tuple{asio::error::would_block, RedisReply{}});
  }

  asio::io_context io_;
  RedisProcess redis_;
};

TEST_F(RedisConnectionTest, ConnectsPingsAndCountsItsTraffic) {
  start_redis();
  auto c = connect(options_for(redis_.port()));
  ASSERT_TRUE(c->is_open());
  auto [ec, reply] = command(*c, {"PING"});
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(reply.type, Type::status);
  EXPECT_EQ(reply.str, "PONG");
  EXPECT_EQ(c->traffic().commands, 2u);            // the connect's PING and ours
  EXPECT_EQ(c->traffic().bytes_sent, 2u * 14);     // *1\r\n$4\r\nPING\r\n
  EXPECT_EQ(c->traffic().bytes_received, 2u * 7);  // +PONG\r\n
  c->close();
  EXPECT_FALSE(c->is_open());
  auto [closed_ec, none] = command(*c, {"PING"});
  EXPECT_EQ(closed_ec, asio::error::not_connected);
}

TEST_F(RedisConnectionTest, ConcurrentCallersArePipelinedAndEachGetsItsReplies) {
  start_redis();
  auto c = connect(options_for(redis_.port()));
  constexpr int kCallers = 200;
  int finished = 0;
  int wrong = 0;
  for (int i = 0; i < kCallers; ++i) {
    asio::co_spawn(
        io_,
        [&, i]() -> awaitable<void> {
          const std::string key = "k" + std::to_string(i);
          const std::string value = "v" + std::to_string(i);
          // Built before the co_await: GCC 12 rejects a braced list inside one.
          std::vector<RedisCommand> commands = {
              {"SET", key, value}, {"GET", key}, {"INCR", "calls"}, {"STRLEN", key}};
          auto [ec, replies] = co_await c->pipeline(std::move(commands));
          if (ec || replies.size() != 4 || replies[0].str != "OK" || replies[1].str != value ||
              replies[2].type != Type::integer || replies[3].integer != std::ssize(value))
            ++wrong;
          ++finished;
        },
        asio::detached);
  }
  ASSERT_TRUE(run_until(io_, [&] { return finished == kCallers; }));
  EXPECT_EQ(wrong, 0);
  auto [ec, calls] = command(*c, {"GET", "calls"});
  EXPECT_EQ(calls.str, std::to_string(kCallers));
  // One caller's long pipeline: a thousand replies, in order.
  std::vector<RedisCommand> many;
  for (int i = 0; i < 1000; ++i) many.push_back({"ECHO", std::to_string(i)});
  auto result = run(io_, c->pipeline(std::move(many)));
  ASSERT_TRUE(result);
  auto& [pec, replies] = *result;
  ASSERT_FALSE(pec);
  ASSERT_EQ(replies.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(replies[i].str, std::to_string(i));
}

TEST_F(RedisConnectionTest, EveryReplyTypeComesBackAsItsType) {
  start_redis();
  auto c = connect(options_for(redis_.port()));
  auto [e1, status] = command(*c, {"SET", "s", "x"});
  EXPECT_EQ(status.type, Type::status);
  auto [e2, error] = command(*c, {"NOSUCHCOMMAND"});
  EXPECT_FALSE(e2) << "an error reply is a reply, not an error_code";
  EXPECT_TRUE(error.is_error());
  EXPECT_TRUE(error.str.starts_with("ERR")) << error.str;
  EXPECT_TRUE(c->is_open());
  auto [e3, integer] = command(*c, {"INCRBY", "n", "-7"});
  EXPECT_EQ(integer.type, Type::integer);
  EXPECT_EQ(integer.integer, -7);
  auto [e4, nil] = command(*c, {"GET", "missing"});
  EXPECT_TRUE(nil.is_nil());
  auto [e5, string] = command(*c, {"GET", "s"});
  EXPECT_EQ(string.type, Type::string);
  EXPECT_EQ(string.str, "x");
  auto [e6, nested] =
      command(*c, {"EVAL", "return {1, {'a', {}}, redis.status_reply('S'), false}", "0"});
  ASSERT_EQ(nested.type, Type::array);
  ASSERT_EQ(nested.elements.size(), 4u);
  EXPECT_EQ(nested.elements[0].integer, 1);
  EXPECT_EQ(nested.elements[1].elements.at(0).str, "a");
  EXPECT_EQ(nested.elements[1].elements.at(1).type, Type::array);
  EXPECT_EQ(nested.elements[2].type, Type::status);
  EXPECT_TRUE(nested.elements[3].is_nil());
}

TEST_F(RedisConnectionTest, ValuesAreBinarySafeUpToTenMegabytes) {
  start_redis();
  auto c = connect(options_for(redis_.port()));
  std::string bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<char>(i));
  bytes += "\r\n$3\r\n*1\r\n";  // RESP inside a value is only bytes
  auto [e1, set] = command(*c, {"SET", std::string("k\0\r\n", 4), bytes});
  EXPECT_EQ(set.str, "OK");
  auto [e2, got] = command(*c, {"GET", std::string("k\0\r\n", 4)});
  EXPECT_EQ(got.str, bytes);

  std::string big(10u << 20, '\0');
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = static_cast<char>((i * 131) >> 3);
  auto [e3, set_big] = command(*c, {"SET", "big", big});
  ASSERT_FALSE(e3) << e3.message();
  EXPECT_EQ(set_big.str, "OK");
  auto [e4, got_big] = command(*c, {"GET", "big"});
  ASSERT_FALSE(e4) << e4.message();
  EXPECT_TRUE(got_big.str == big);
  EXPECT_GT(c->traffic().bytes_received, 10u << 20);
}

TEST_F(RedisConnectionTest, AuthWithThePasswordOrRefused) {
  start_redis({.requirepass = "s3cret"});
  auto options = options_for(redis_.port());
  options.password = "s3cret";
  auto ok = connect(options);
  EXPECT_TRUE(ok->is_open());
  options.password = "wrong";
  auto refused = connect(options, RedisErrc::auth_refused);
  EXPECT_FALSE(refused->is_open());
  options.password.clear();  // the server's NOAUTH to our PING
  auto none = connect(options, RedisErrc::auth_refused);
  EXPECT_FALSE(none->is_open());
}

TEST_F(RedisConnectionTest, AuthAsAnAclUserOrRefused) {
  start_redis({.acl_user = "sumcache", .acl_password = "pw"});
  auto options = options_for(redis_.port());
  options.username = "sumcache";
  options.password = "pw";
  auto ok = connect(options);
  auto [ec, who] = command(*ok, {"ACL", "WHOAMI"});
  EXPECT_EQ(who.str, "sumcache");
  options.password = "nope";
  connect(options, RedisErrc::auth_refused);
  options.username = "nobody";
  connect(options, RedisErrc::auth_refused);
}

TEST_F(RedisConnectionTest, TlsVerifiesTheServerName) {
  testing::TempDir dir;
  const auto pki = testing::make_test_pki(dir.path());
  start_redis({.tls_cert = pki.server_cert, .tls_key = pki.server_key, .tls_ca = pki.ca_cert});
  asio::ssl::context tls(asio::ssl::context::tls_client);
  tls.load_verify_file(pki.ca_cert.string());
  auto options = options_for(redis_.port());
  options.tls = &tls;
  options.server_name = "localhost";
  auto ok = connect(options);
  auto [ec, reply] = command(*ok, {"ECHO", "over tls"});
  EXPECT_EQ(reply.str, "over tls");
  EXPECT_GT(ok->traffic().bytes_received, 0u);

  options.server_name = "not-this-server.example";
  auto c = std::make_shared<RedisConnection>(io_.get_executor(), options);
  const auto wrong = run(io_, c->connect());
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->category(), asio::error::get_ssl_category()) << wrong->message();
  EXPECT_FALSE(c->is_open());
  // Plain text to a TLS port fails within the connect deadline.
  auto plain_options = options_for(redis_.port());
  plain_options.connect_timeout = 500ms;
  auto plain = std::make_shared<RedisConnection>(io_.get_executor(), plain_options);
  const auto plain_ec = run(io_, plain->connect());
  ASSERT_TRUE(plain_ec);
  EXPECT_TRUE(*plain_ec);
}

TEST_F(RedisConnectionTest, ASilentServerFailsTheConnectAtItsDeadline) {
  RawServer silent(io_, [](tcp::socket&) -> awaitable<void> { co_return; });
  auto options = options_for(silent.port());
  options.connect_timeout = 300ms;
  const auto start = std::chrono::steady_clock::now();
  auto c = connect(options, asio::error::timed_out);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 3s);
  EXPECT_FALSE(c->is_open());
}

TEST_F(RedisConnectionTest, AServerThatStopsAnsweringFailsEveryPendingCall) {
  // Answers the connect's PING, then nothing.
  RawServer server(io_, [](tcp::socket& s) -> awaitable<void> {
    co_await read_until(s, "PING\r\n");
    co_await write(s, "+PONG\r\n");
  });
  auto options = options_for(server.port());
  options.command_timeout = 300ms;
  auto c = connect(options);
  int failed = 0;
  error_code seen;
  for (int i = 0; i < 3; ++i)
    asio::co_spawn(
        io_,
        [&, i]() -> awaitable<void> {
          RedisCommand get = {"GET", "k"};
          auto [ec, r] = co_await c->command(std::move(get), std::chrono::milliseconds(i * 2000));
          if (ec) ++failed;
          seen = ec;
        },
        asio::detached);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(run_until(
      io_, [&] { return failed == 3; }, 10s));
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1500ms) << "the first deadline ends them all";
  EXPECT_EQ(seen, asio::error::timed_out);
  EXPECT_FALSE(c->is_open());
}

TEST_F(RedisConnectionTest, ABlockLongerThanTheDeadlineTimesOutAndExtraCoversIt) {
  start_redis();
  auto options = options_for(redis_.port());
  options.command_timeout = 300ms;
  auto c = connect(options);
  auto [ec, r] = command(*c, {"BLPOP", "nothing", "2"});
  EXPECT_EQ(ec, asio::error::timed_out);
  EXPECT_FALSE(c->is_open());
  auto again = connect(options);
  auto [ec2, nil] = command(*again, {"XREAD", "BLOCK", "500", "STREAMS", "s", "$"}, 1s);
  EXPECT_FALSE(ec2) << ec2.message();
  EXPECT_TRUE(nil.is_nil());
  EXPECT_TRUE(again->is_open());
}

// A server that answers the connect's PING with `reply`.
RawServer::Script answer_ping(std::string reply, bool then_close = false) {
  return [reply, then_close](tcp::socket& s) -> awaitable<void> {
    co_await read_until(s, "PING\r\n");
    co_await write(s, reply);
    if (then_close) s.close();
  };
}

TEST_F(RedisConnectionTest, AHugeArrayHeaderIsRefusedWithoutAllocating) {
  RawServer server(io_, answer_ping("*999999999\r\n"));
  auto c = connect(options_for(server.port()), RedisErrc::reply_too_large);
  EXPECT_FALSE(c->is_open());
  EXPECT_EQ(c->traffic().bytes_received, 12u);  // the header alone
}

TEST_F(RedisConnectionTest, AHugeBulkHeaderIsRefusedOnItsHeader) {
  // The header, then a stream of bytes that would never end.
  RawServer server(io_, [](tcp::socket& s) -> awaitable<void> {
    co_await read_until(s, "PING\r\n");
    co_await write(s, "$999999999999\r\n");
    const std::string junk(64 * 1024, 'x');
    for (int i = 0; i < 1000; ++i) {
      auto [ec, n] = co_await asio::async_write(s, asio::buffer(junk), use_nothrow);
      if (ec) break;
    }
  });
  auto c = connect(options_for(server.port()), RedisErrc::reply_too_large);
  EXPECT_LT(c->traffic().bytes_received, 1u << 20);
}

TEST_F(RedisConnectionTest, AReplyOverMaxReplyBytesIsRefused) {
  std::string many = "*100000\r\n";
  for (int i = 0; i < 100000; ++i) many += ":1\r\n";
  RawServer server(io_, answer_ping(many));
  auto options = options_for(server.port());
  options.limits.max_reply_bytes = 64 * 1024;
  auto c = connect(options, RedisErrc::reply_too_large);
  EXPECT_LT(c->traffic().bytes_received, 256u * 1024);
}

TEST_F(RedisConnectionTest, AServerClosingMidReplyFailsTheCall) {
  RawServer server(io_, answer_ping("$10\r\nabc", /*then_close=*/true));
  auto c = connect(options_for(server.port()), asio::error::eof);
  EXPECT_FALSE(c->is_open());
}

TEST_F(RedisConnectionTest, NotRespOrAnUnaskedReplyClosesTheConnection) {
  RawServer garbage(io_, answer_ping("HTTP/1.1 400 Bad Request\r\n\r\n"));
  connect(options_for(garbage.port()), RedisErrc::protocol_error);
  RawServer chatty(io_, answer_ping("+PONG\r\n+EXTRA\r\n"));
  auto c = connect(options_for(chatty.port()));
  ASSERT_TRUE(run_until(
      io_, [&] { return !c->is_open(); }, 5s))
      << "a reply nobody asked for means the replies no longer pair with the calls";
  RawServer wrong(io_, answer_ping(":1\r\n"));
  connect(options_for(wrong.port()), RedisErrc::unexpected_reply);
}

TEST_F(RedisConnectionTest, NothingListeningFailsTheConnect) {
  const auto port = testing::free_port();  // free a moment ago: nothing listens there
  auto c = std::make_shared<RedisConnection>(io_.get_executor(), options_for(port));
  const auto ec = run(io_, c->connect());
  ASSERT_TRUE(ec);
  EXPECT_TRUE(*ec);
}

}  // namespace
}  // namespace sumcache::daemon
