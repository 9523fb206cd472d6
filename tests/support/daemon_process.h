#pragma once
// DaemonProcess: runs a program under test (sumcached, test_origin_server, any
// executable) as a child of the test, with stdout and stderr captured to files
// in a temp dir of its own.
//
// It signals only the PID it started, and never one it has already reaped (the
// number may belong to someone else by then). Every wait has a timeout and
// polls the condition instead of sleeping a guessed time. The destructor never
// leaves the child running: SIGTERM, then SIGKILL after a grace period. Should
// the test process die instead, the kernel kills the child (PR_SET_PDEATHSIG),
// which is tied to the thread that called start(): call it from the test's thread.

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "tests/support/temp_dir.h"

namespace sumcache::testing {

// How the child ended: `code` when it exited (else -1), `signal` when a signal killed it (else 0).
struct ExitStatus {
  int code = -1;
  int signal = 0;
};

enum class Output { out, err };

class DaemonProcess {
 public:
  using Ms = std::chrono::milliseconds;

  DaemonProcess() = default;
  ~DaemonProcess();
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  // The temp dir: the child's working directory, its captured output, files the test writes.
  const std::filesystem::path& dir() const { return dir_.path(); }
  // Writes `content` to dir()/name, for a config file, and returns the path. Throws
  // std::runtime_error when it cannot: the test cannot go on without the file.
  std::filesystem::path write_file(std::string_view name, std::string_view content) const;

  // Starts `program` with `args` as argv[1..] in a process group of its own, so that a
  // Ctrl-C meant for the test runner does not reach it: the test decides how it stops.
  // Fails with the errno of the child's exec, or when already started.
  std::error_code start(const std::filesystem::path& program, const std::vector<std::string>& args);

  pid_t pid() const { return pid_; }
  // False once the child has ended (it is reaped then, and its status kept).
  bool running();
  const std::optional<ExitStatus>& exit_status() const { return exit_; }

  // Waits for a complete line of `stream` in which the ECMAScript regex `pattern` matches
  // (std::regex_search) and returns the match and its groups ([0] is the whole match).
  // Reads the output from its start, so a line printed before the call counts. nullopt
  // when `timeout` passes or the child ends first; std::regex_error for a bad pattern.
  // A string rather than a std::regex, so that callers need not build <regex>, which
  // GCC 12 warns about falsely in sanitized builds.
  std::optional<std::vector<std::string>> wait_for_line(const std::string& pattern, Ms timeout,
                                                        Output stream = Output::out);
  // Waits until host:port accepts a TCP connection; false on timeout or when the child ends.
  bool wait_for_port(std::uint16_t port, Ms timeout, const std::string& host = "127.0.0.1");

  // Sends `sig` and waits for the child to end. nullopt if it was never started or is still
  // running after `timeout` (it is left running then; the destructor kills it).
  std::optional<ExitStatus> stop(int sig = SIGTERM, Ms timeout = std::chrono::seconds(5));
  // SIGKILL and reap. nullopt if it was never started.
  std::optional<ExitStatus> kill_hard();

  std::filesystem::path output_path(Output stream) const;
  // Everything the child has written to `stream` so far.
  std::string output(Output stream) const;

 private:
  // Reaps the child if it has ended; with `block`, waits for it to end.
  void reap(bool block);

  TempDir dir_;
  pid_t pid_ = -1;
  std::optional<ExitStatus> exit_;
};

}  // namespace sumcache::testing
