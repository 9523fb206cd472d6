#pragma once
// A Redis reply (RESP2), as the connection hands it to its callers. Built by
// the parser's own object functions, which refuse an array or a string larger
// than the connection's bounds before anything is allocated for it.

#include <cstdint>
#include <string>
#include <vector>

namespace sumcache::daemon {

struct RedisReply {
  enum class Type { string, status, error, integer, nil, array };
  Type type = Type::nil;
  std::string str;  // string, status, error
  long long integer = 0;
  std::vector<RedisReply> elements;  // array
  bool is_error() const { return type == Type::error; }
  bool is_nil() const { return type == Type::nil; }
};

// What a connection accepts from a server before it closes it (a hostile or
// broken server cannot make this process buffer or allocate more).
struct RedisReplyLimits {
  std::size_t max_reply_bytes = 80u << 20;  // one reply's bytes as read, headers included
  std::size_t max_elements = 1u << 20;      // elements of one array (nested ones each)
};

}  // namespace sumcache::daemon
