#pragma once
// A raw HTTP/1.1 origin on loopback for faults that need exact bytes on a
// keep-alive connection: it closes connections idle past a set time, drops
// requests after the first on a connection without answering (an idle close
// crossing the proxy's request), and sends bytes nobody asked for. Requests
// carry Content-Length bodies only. One thread per connection; every read has
// a deadline; the destructor stops and joins everything.
//
// Routes (any method):
//   /stray/...     answered, then a complete fake response sent on the idle connection
//   /extra/...     answered, with a fake response in the same write
//   /extra204/...  a 204 with a fake response in the same write
//   anything else  200 "real:<METHOD> <path> <body bytes>", max-age=600 for GET
// The fake response is a cacheable 200 whose body is kPoison.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace sumcache::testing {

inline constexpr const char* kPoison = "POISON";

struct KeepAliveFaultOriginOptions {
  std::chrono::milliseconds idle_close{0};  // 0: keep idle connections for kMaxIdle
  bool drop_after_first = false;  // read the second request on a connection, close unanswered
};

struct SeenRequest {
  std::string method;
  std::string path;
  std::size_t body_bytes = 0;
  int connection = 0;  // 1 for the first accepted
  bool answered = false;
};

class KeepAliveFaultOrigin {
 public:
  explicit KeepAliveFaultOrigin(KeepAliveFaultOriginOptions options = {});
  ~KeepAliveFaultOrigin();
  KeepAliveFaultOrigin(const KeepAliveFaultOrigin&) = delete;
  KeepAliveFaultOrigin& operator=(const KeepAliveFaultOrigin&) = delete;

  // False when the listener cannot be set up.
  bool start();
  std::uint16_t port() const { return port_; }
  std::string url(const std::string& path) const;

  std::vector<SeenRequest> seen() const;
  int stray_sent() const;
  // Waits until `ready(seen(), stray_sent())` holds; false after `timeout`.
  bool wait_until(const std::function<bool(const std::vector<SeenRequest>&, int)>& ready,
                  std::chrono::milliseconds timeout) const;

 private:
  void accept_loop();
  void serve(int fd, int connection);
  void record(SeenRequest request);

  KeepAliveFaultOriginOptions options_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::thread acceptor_;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool stopping_ = false;
  std::vector<int> open_fds_;
  std::vector<std::thread> sessions_;
  std::vector<SeenRequest> seen_;
  int stray_sent_ = 0;
};

}  // namespace sumcache::testing
