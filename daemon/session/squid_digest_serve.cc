#include "daemon/session/squid_digest_serve.h"

#include "daemon/cache/squid_digest_service.h"
#include "daemon/exchange/error_response.h"

namespace sumcache::daemon {

awaitable<unsigned> serve_squid_digest(SquidDigestService& digest, const Settings& settings,
                                       ClientExchange& client,
                                       const beast::http::request_header<>& req,
                                       AccessRecord& record) {
  const auto snapshot = digest.current();
  const auto ims = req.find(beast::http::field::if_modified_since);
  const SquidDigestReply reply = squid_digest_reply(
      snapshot.get(), req.method_string(),
      ims == req.end() ? std::nullopt : std::optional<std::string_view>(ims->value()),
      std::chrono::system_clock::now());
  digest.note_answer(reply.status);
  // Not a lookup of the cache: counted apart from hits and misses.
  record.result =
      reply.status == 200 || reply.status == 304 ? CacheResult::pass : CacheResult::error;
  const unsigned version = req.version();
  if (reply.status == 405 || reply.status == 503) {
    // send_error's body says why; the reply's fields (Allow, Retry-After) go with it.
    auto res = make_error_response(static_cast<beast::http::status>(reply.status), reply.reason,
                                   client.keep_alive, version, settings.via);
    for (const auto& [name, value] : reply.fields) res.set(name, value);
    co_await write_message(client, res);
    co_return reply.status;
  }
  beast::http::response<beast::http::string_body> res{
      static_cast<beast::http::status>(reply.status), version == 10 ? 10U : 11U};
  if (reply.status == 200) res.reason("Cache Digest OK");  // Squid's own reason phrase
  for (const auto& [name, value] : reply.fields) res.set(name, value);
  res.set(beast::http::field::via, settings.via_for(version));
  res.set("X-Cache", "DIGEST");
  res.keep_alive(client.keep_alive);
  if (!client.keep_alive) res.set(beast::http::field::connection, "close");
  if (reply.status == 200) {
    // HEAD: the GET's Content-Length over an empty body (RFC 9110 §9.3.2).
    if (reply.body) res.body() = snapshot->body;
    res.content_length(snapshot->body.size());
  }
  co_await write_message(client, res);
  co_return reply.status;
}

}  // namespace sumcache::daemon
