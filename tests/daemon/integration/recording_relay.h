#pragma once
// A TCP relay on loopback that records what clients send through it: a test
// puts it between two nodes (a node's peer entry names the relay's port) to
// capture real peer-channel requests off the wire and replay them later, as
// someone on the path could.

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace sumcache::testing {

class RecordingRelay {
 public:
  // Forwards each connection to 127.0.0.1:target.
  explicit RecordingRelay(std::uint16_t target) : target_(target) {}
  ~RecordingRelay() { stop(); }
  RecordingRelay(const RecordingRelay&) = delete;
  RecordingRelay& operator=(const RecordingRelay&) = delete;

  // Listens on 127.0.0.1 at a free port: false when it cannot.
  bool start();
  void stop();
  std::uint16_t port() const { return port_; }
  // The bytes every finished connection sent whose request line is
  // "POST <path> ...", in the order the connections ended.
  std::vector<std::string> posts_to(std::string_view path) const;

 private:
  void accept_loop();
  void relay(int client);

  std::uint16_t target_;
  std::uint16_t port_ = 0;
  int listener_ = -1;
  std::atomic<bool> stopped_{false};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<std::thread> connections_;
  std::vector<std::string> recorded_;
};

}  // namespace sumcache::testing
