#pragma once
// ScriptedOrigin: a raw TCP origin on 127.0.0.1 that answers every request with
// the same script of exact bytes, holds where the test says (until it opens the
// gate) and closes where it says: for tests of how the proxy relays a body as
// it arrives, which need control over when each byte leaves the origin.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <variant>
#include <vector>

namespace sumcache::testing {

// A one-shot signal from the test to the origin.
class Gate {
 public:
  void open();
  // True when opened within `timeout`.
  bool wait(std::chrono::milliseconds timeout);

 private:
  std::mutex mutex_;
  std::condition_variable opened_cv_;
  bool opened_ = false;
};

struct Send {
  std::string bytes;
};
struct Hold {};  // waits for the gate (at most the origin's hold limit), then goes on
using Step = std::variant<Send, Hold>;

class ScriptedOrigin {
 public:
  // After the last step the connection is closed, whatever the script framed.
  explicit ScriptedOrigin(std::vector<Step> script,
                          std::chrono::milliseconds hold_limit = std::chrono::seconds(10));
  ~ScriptedOrigin();
  ScriptedOrigin(const ScriptedOrigin&) = delete;
  ScriptedOrigin& operator=(const ScriptedOrigin&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  Gate& gate() { return gate_; }
  // The script for requests read from now on (a changed representation).
  void set_script(std::vector<Step> script);
  // Requests whose head (and Content-Length body) were read.
  int requests() const { return requests_.load(); }

 private:
  void accept_loop();
  void serve(int fd);

  std::mutex script_mutex_;
  std::vector<Step> script_;
  std::chrono::milliseconds hold_limit_;
  Gate gate_;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> requests_{0};
  std::mutex threads_mutex_;
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

// Helpers for scripts: a response head, and a body piece in chunked framing.
std::string response_head(const std::vector<std::string>& fields);
std::string chunk(const std::string& data);

}  // namespace sumcache::testing
