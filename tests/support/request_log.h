#pragma once
// RequestLog: what the test origin was asked, so a test can assert "the origin
// saw exactly one request for /obj/a" or check the headers the proxy forwarded.
// Thread-safe: the origin records on its thread while the test reads.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/header_list.h"

namespace sumcache::testing {

struct LoggedRequest {
  std::string method;
  std::string target;  // as sent
  std::string path;    // target without query; absolute-form reduced to its path
  HeaderList headers;  // all of them, in order
  std::size_t body_bytes = 0;
  std::chrono::system_clock::time_point time;  // when the request was read
};

class RequestLog {
 public:
  void record(LoggedRequest request);

  std::vector<LoggedRequest> entries() const;
  // Requests whose path is `path`, whatever their query or method.
  std::size_t count(std::string_view path) const;
  std::size_t total() const;
  void clear();

  // Waits until count(path) reaches `n`, for requests the proxy makes in the
  // background (revalidation, prefetch); false when `timeout` passes first.
  bool wait_for_count(std::string_view path, std::size_t n,
                      std::chrono::milliseconds timeout) const;

 private:
  std::size_t count_locked(std::string_view path) const;

  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  std::vector<LoggedRequest> entries_;
  std::map<std::string, std::size_t, std::less<>> per_path_;
};

}  // namespace sumcache::testing
