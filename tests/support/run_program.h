#pragma once
// Runs a client program (curl, openssl, h2load, a Python script) to its end as
// a child process, and gives back its exit code and output.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace sumcache::testing {

struct Finished {
  int code = -1;  // -1: did not start, or did not end in time
  std::string out;
  std::string err;
};

// argv[0] with the rest as its arguments, stdin from `input` (else /dev/null,
// which DaemonProcess gives every child), stopped by PID after `timeout`.
Finished run_program(std::vector<std::string> argv, const std::filesystem::path& input = {},
                     std::chrono::seconds timeout = std::chrono::seconds(30));

}  // namespace sumcache::testing
