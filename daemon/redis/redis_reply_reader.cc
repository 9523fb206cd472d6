#include "daemon/redis/redis_reply_reader.h"

#include <hiredis/read.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <utility>

namespace sumcache::daemon {

// The reply in progress: hiredis hands each object function the task being
// read, whose parent's obj is the array the new object goes into (in index
// order). Every object lives inside `root`, so nothing is owned through hiredis
// and its freeObject has nothing to do.
struct RedisReplyBuilder {
  RedisReplyLimits limits;
  RedisReply root;
  bool refused = false;  // an object function said no: `why`, not hiredis's out-of-memory
  RedisErrc why = RedisErrc::protocol_error;
};

namespace {

using boost::system::error_code;

// Fed in slices so that the limits hold whatever a caller hands in at once.
constexpr std::size_t kSlice = 16 * 1024;
// An array reserves no more than this up front: its header is only a claim.
constexpr std::size_t kReserveAtMost = 64;
// A bulk string's length line: the longest length hiredis accepts (20 digits) + CRLF.
constexpr std::size_t kLengthLineMax = 20 + 2;

RedisReplyBuilder& builder(const redisReadTask* task) {
  return *static_cast<RedisReplyBuilder*>(task->privdata);
}

void* refuse(const redisReadTask* task, RedisErrc why) {
  builder(task).refused = true;
  builder(task).why = why;
  return nullptr;  // hiredis then stops with an error, which feed() reports as `why`
}

// Places `reply` as the root, or as the next element of its parent array.
void* place(const redisReadTask* task, RedisReply&& reply) {
  auto& b = builder(task);
  if (task->parent == nullptr) {
    b.root = std::move(reply);
    return &b.root;
  }
  auto* parent = static_cast<RedisReply*>(task->parent->obj);
  if (task->idx < 0 || parent->elements.size() != static_cast<std::size_t>(task->idx))
    return refuse(task, RedisErrc::protocol_error);
  parent->elements.push_back(std::move(reply));
  return &parent->elements.back();
}

void* create_string(const redisReadTask* task, char* str, std::size_t len) {
  RedisReply reply;
  switch (task->type) {
    case REDIS_REPLY_STRING:
      reply.type = RedisReply::Type::string;
      break;
    case REDIS_REPLY_STATUS:
      reply.type = RedisReply::Type::status;
      break;
    case REDIS_REPLY_ERROR:
      reply.type = RedisReply::Type::error;
      break;
    default:
      return refuse(task, RedisErrc::protocol_error);
  }
  if (len > builder(task).limits.max_reply_bytes) return refuse(task, RedisErrc::reply_too_large);
  // hiredis skips the two bytes after a bulk string unread; they are in its
  // buffer (it waited for them), so check they are the CRLF RESP requires.
  if (str[len] != '\r' || str[len + 1] != '\n') return refuse(task, RedisErrc::protocol_error);
  reply.str.assign(str, len);
  return place(task, std::move(reply));
}

void* create_array(const redisReadTask* task, int elements) {
  if (elements < 0) return refuse(task, RedisErrc::protocol_error);
  const auto n = static_cast<std::size_t>(elements);
  if (n > builder(task).limits.max_elements) return refuse(task, RedisErrc::reply_too_large);
  RedisReply reply;
  reply.type = RedisReply::Type::array;
  reply.elements.reserve(std::min(n, kReserveAtMost));
  return place(task, std::move(reply));
}

void* create_integer(const redisReadTask* task, long long value) {
  RedisReply reply;
  reply.type = RedisReply::Type::integer;
  reply.integer = value;
  return place(task, std::move(reply));
}

void* create_nil(const redisReadTask* task) { return place(task, RedisReply{}); }

void free_object(void*) {}

redisReplyObjectFunctions kFunctions{create_string, create_array, create_integer, create_nil,
                                     free_object};

redisReader* as_reader(void* r) { return static_cast<redisReader*>(r); }

// Bytes fed but not yet consumed by hiredis.
std::size_t unconsumed(const redisReader* r) { return r->len - r->pos; }

}  // namespace

RedisReplyReader::RedisReplyReader(RedisReplyLimits limits)
    : limits_(limits), builder_(std::make_unique<RedisReplyBuilder>()) {
  builder_->limits = limits;
  redisReader* r = redisReaderCreateWithFunctions(&kFunctions);
  // Each task gets the reader's privdata: how the object functions find the builder.
  if (r != nullptr) r->privdata = builder_.get();
  reader_ = r;
  // hiredis could not allocate its reader: every feed fails rather than crash.
  if (r == nullptr) error_ = RedisErrc::protocol_error;
}

RedisReplyReader::~RedisReplyReader() {
  if (reader_ != nullptr) redisReaderFree(as_reader(reader_));
}

const char* RedisReplyReader::error_text() const {
  return reader_ == nullptr ? "no reader" : as_reader(reader_)->errstr;
}

error_code RedisReplyReader::fail(error_code ec) {
  error_ = ec;
  builder_->root = {};
  return ec;
}

error_code RedisReplyReader::feed(std::string_view bytes, std::vector<RedisReply>& out) {
  if (error_) return error_;
  redisReader* r = as_reader(reader_);
  while (!bytes.empty()) {
    const std::size_t n = std::min(bytes.size(), kSlice);
    if (redisReaderFeed(r, bytes.data(), n) != REDIS_OK) return fail(RedisErrc::protocol_error);
    fed_ += n;
    bytes.remove_prefix(n);
    if (auto ec = drain(out)) return fail(ec);
    if (pending_bytes() > limits_.max_reply_bytes) return fail(RedisErrc::reply_too_large);
    if (auto ec = check_pending_bulk()) return fail(ec);
  }
  return {};
}

error_code RedisReplyReader::drain(std::vector<RedisReply>& out) {
  redisReader* r = as_reader(reader_);
  for (;;) {
    void* reply = nullptr;
    if (redisReaderGetReply(r, &reply) != REDIS_OK)
      return builder_->refused ? error_code(builder_->why) : error_code(RedisErrc::protocol_error);
    if (reply == nullptr) return {};
    const std::uint64_t end = fed_ - unconsumed(r);
    const std::uint64_t size = end - reply_start_;
    reply_start_ = end;
    if (size > limits_.max_reply_bytes) return RedisErrc::reply_too_large;
    out.push_back(std::move(builder_->root));
    builder_->root = {};
  }
}

// hiredis waits for a whole bulk string before it calls createString, holding
// every byte of it: read the pending item's header here, so that a server that
// announces more than the limit is refused on its header, not 80 MB later.
// hiredis 0.14 has consumed the item's type byte (its task's type says
// string) and leaves `pos` on the length until the string is whole; the length
// line, once complete, has passed its checks (it would have failed otherwise).
// rstack is 0.14's task stack: a hiredis of another layout fails to compile here.
error_code RedisReplyReader::check_pending_bulk() const {
  const redisReader* r = as_reader(reader_);
  if (r->buf == nullptr || r->ridx < 0 || r->rstack[r->ridx].type != REDIS_REPLY_STRING) return {};
  const char* begin = r->buf + r->pos;
  const std::size_t avail = std::min(unconsumed(r), kLengthLineMax);
  const char* cr = static_cast<const char*>(std::memchr(begin, '\r', avail));
  if (cr == nullptr) return {};
  long long declared = 0;
  const auto [end, ec] = std::from_chars(begin, cr, declared);
  if (ec != std::errc() || end != cr || declared < 0) return {};
  const std::uint64_t before =
      (fed_ - unconsumed(r)) - reply_start_;  // of this reply, "$" included
  const std::uint64_t line = static_cast<std::uint64_t>(cr - begin) + 2;
  const std::uint64_t need = before + line + static_cast<std::uint64_t>(declared) + 2;
  if (need > limits_.max_reply_bytes) return RedisErrc::reply_too_large;
  return {};
}

}  // namespace sumcache::daemon
