#pragma once
// RESP replies from raw bytes, without sockets: hiredis's redisReader with our
// own object functions, which build RedisReply directly (docs/dependencies.md).
// Bounded by RedisReplyLimits: an array over max_elements is refused when its
// header is read, before anything is allocated for it; a bulk string whose
// declared length would take its reply over max_reply_bytes is refused as soon
// as its header is in; and the bytes held for one incomplete reply never pass
// max_reply_bytes (input is fed in slices and checked after each).

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "daemon/redis/redis_error.h"
#include "daemon/redis/redis_reply.h"

namespace sumcache::daemon {

struct RedisReplyBuilder;  // what hiredis's object functions build into (.cc)

class RedisReplyReader {
 public:
  explicit RedisReplyReader(RedisReplyLimits limits = {});
  ~RedisReplyReader();
  RedisReplyReader(const RedisReplyReader&) = delete;
  RedisReplyReader& operator=(const RedisReplyReader&) = delete;

  // Appends the replies `bytes` completes to `out`. An error (protocol_error,
  // reply_too_large) is final: every later feed returns it again.
  boost::system::error_code feed(std::string_view bytes, std::vector<RedisReply>& out);
  // Bytes of the reply in progress received so far (0 between replies).
  std::size_t pending_bytes() const { return fed_ - reply_start_; }
  // hiredis's description of the last protocol error, for a log line.
  const char* error_text() const;

 private:
  boost::system::error_code drain(std::vector<RedisReply>& out);
  boost::system::error_code check_pending_bulk() const;
  boost::system::error_code fail(boost::system::error_code ec);

  RedisReplyLimits limits_;
  std::unique_ptr<RedisReplyBuilder> builder_;
  void* reader_ = nullptr;         // redisReader*, kept out of this header
  std::uint64_t fed_ = 0;          // bytes fed since construction
  std::uint64_t reply_start_ = 0;  // stream offset where the reply in progress began
  boost::system::error_code error_;
};

}  // namespace sumcache::daemon
