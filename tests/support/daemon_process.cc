#include "tests/support/daemon_process.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "tests/support/ports.h"

namespace sumcache::testing {

namespace {

using Clock = std::chrono::steady_clock;

// Between two looks at a condition being waited for; short, as the wait ends as soon as it holds.
constexpr std::chrono::milliseconds kPollInterval{5};
// How long the destructor lets the child shut down on SIGTERM before SIGKILL.
constexpr std::chrono::seconds kDestructorGrace{5};

// Closes every descriptor from 3 up except `keep`, so that the child holds none of the
// test's sockets (Asio opens them without O_CLOEXEC) and a port is free once its owner closes it.
void close_inherited_fds(int keep) {
  if (keep > 3) ::close_range(3, keep - 1, 0);
  if (::close_range(keep + 1, ~0U, 0) == 0) return;
  for (int fd = 3; fd < 65536; ++fd) {  // kernels before 5.9 have no close_range
    if (fd != keep) ::close(fd);
  }
}

// The child's side of the fork: only async-signal-safe calls until exec, since other threads
// of the test (a TestOrigin's, for one) may have held locks at the moment of the fork.
[[noreturn]] void exec_child(const char* program, char* const argv[], const char* dir, int out,
                             int err, int report, pid_t parent) {
  ::setpgid(0, 0);
  // If the test runner dies the child dies with it instead of holding its port.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  const int null = ::open("/dev/null", O_RDONLY);
  ::dup2(null, STDIN_FILENO);
  ::dup2(out, STDOUT_FILENO);
  ::dup2(err, STDERR_FILENO);
  close_inherited_fds(report);
  // Dispositions set to "ignore" and blocked signals survive exec; the child gets neither.
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig = 1; sig < NSIG; ++sig) ::signal(sig, SIG_DFL);
  if (::chdir(dir) == 0) ::execv(program, argv);
  const int error = errno;
  [[maybe_unused]] auto ignored = ::write(report, &error, sizeof error);
  ::_exit(127);
}

ExitStatus decode(int wait_status) {
  ExitStatus status;
  if (WIFEXITED(wait_status)) status.code = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) status.signal = WTERMSIG(wait_status);
  return status;
}

// The complete lines of `text`, plus the unterminated last one when the writer is gone.
std::vector<std::string> lines_of(const std::string& text, bool writer_gone) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!in.eof() || writer_gone) lines.push_back(line);
  }
  return lines;
}

}  // namespace

DaemonProcess::~DaemonProcess() {
  if (pid_ < 0 || exit_) return;
  if (!stop(SIGTERM, kDestructorGrace)) kill_hard();
}

std::filesystem::path DaemonProcess::write_file(std::string_view name,
                                                std::string_view content) const {
  auto path = dir() / name;
  std::ofstream file(path, std::ios::binary);
  file << content;
  file.close();
  if (!file) throw std::runtime_error("cannot write " + path.string());
  return path;
}

std::filesystem::path DaemonProcess::output_path(Output stream) const {
  return dir() / (stream == Output::out ? "stdout.log" : "stderr.log");
}

std::string DaemonProcess::output(Output stream) const {
  std::ifstream in(output_path(stream), std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::error_code DaemonProcess::start(const std::filesystem::path& program,
                                     const std::vector<std::string>& args) {
  if (pid_ >= 0) return std::make_error_code(std::errc::device_or_resource_busy);
  // Everything the child needs is made before the fork: no allocation after it.
  const std::string program_path = program.string();
  const std::string dir_path = dir().string();
  std::vector<std::string> words{program_path};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(words.size() + 1);
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
  const int out = ::open(output_path(Output::out).c_str(), flags, 0644);
  const int err = ::open(output_path(Output::err).c_str(), flags, 0644);
  int report[2] = {-1, -1};  // carries the exec's errno; closed by a successful exec
  if (out < 0 || err < 0 || ::pipe2(report, O_CLOEXEC) != 0) {
    const int error = errno;
    for (int fd : {out, err}) ::close(fd);
    return {error, std::system_category()};
  }
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid == 0)
    exec_child(program_path.c_str(), argv.data(), dir_path.c_str(), out, err, report[1], parent);
  const int fork_error = errno;
  for (int fd : {out, err, report[1]}) ::close(fd);
  if (pid < 0) {
    ::close(report[0]);
    return {fork_error, std::system_category()};
  }
  int exec_error = 0;
  ssize_t n;
  do n = ::read(report[0], &exec_error, sizeof exec_error);
  while (n < 0 && errno == EINTR);
  ::close(report[0]);
  if (n > 0) {
    ::waitpid(pid, nullptr, 0);
    return {exec_error, std::system_category()};
  }
  pid_ = pid;
  return {};
}

void DaemonProcess::reap(bool block) {
  if (pid_ < 0 || exit_) return;
  int wait_status = 0;
  pid_t r;
  do r = ::waitpid(pid_, &wait_status, block ? 0 : WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == pid_) exit_ = decode(wait_status);
}

bool DaemonProcess::running() {
  reap(false);
  return pid_ >= 0 && !exit_;
}

std::optional<std::vector<std::string>> DaemonProcess::wait_for_line(const std::string& pattern,
                                                                     Ms timeout, Output stream) {
  const std::regex regex(pattern);
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    // Checked before reading, so that the last output of a child that just ended is seen.
    const bool ended = !running();
    for (const auto& line : lines_of(output(stream), ended)) {
      std::smatch match;
      if (std::regex_search(line, match, regex)) {
        return std::vector<std::string>(match.begin(), match.end());
      }
    }
    if (ended || Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(kPollInterval);
  }
}

bool DaemonProcess::wait_for_port(std::uint16_t port, Ms timeout, const std::string& host) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    if (!running()) return false;
    const auto left = std::chrono::duration_cast<Ms>(deadline - Clock::now());
    if (port_accepts(host, port, std::max(left, Ms(1)))) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(kPollInterval);
  }
}

std::optional<ExitStatus> DaemonProcess::stop(int sig, Ms timeout) {
  if (pid_ < 0) return std::nullopt;
  if (running()) ::kill(pid_, sig);
  const auto deadline = Clock::now() + timeout;
  while (running()) {
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(kPollInterval);
  }
  return exit_;
}

std::optional<ExitStatus> DaemonProcess::kill_hard() {
  if (pid_ < 0) return std::nullopt;
  if (running()) ::kill(pid_, SIGKILL);
  reap(true);
  return exit_;
}

}  // namespace sumcache::testing
