#include "daemon/redis/redis_error.h"

#include <string>

namespace sumcache::daemon {
namespace {

class RedisCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "redis"; }
  std::string message(int value) const override {
    switch (static_cast<RedisErrc>(value)) {
      case RedisErrc::protocol_error:
        return "the server's reply is not RESP";
      case RedisErrc::reply_too_large:
        return "the server's reply is over the connection's limits";
      case RedisErrc::auth_refused:
        return "the server refused AUTH";
      case RedisErrc::unexpected_reply:
        return "the server's reply is not what the command expects";
      case RedisErrc::not_connected:
        return "not connected to Redis (reconnecting)";
    }
    return "unknown redis error " + std::to_string(value);
  }
};

}  // namespace

const std::error_category& redis_category() {
  static const RedisCategory category;
  return category;
}

}  // namespace sumcache::daemon
