#include "tests/support/redis_process.h"

#include <unistd.h>

#include <thread>

#include "tests/support/ports.h"

namespace sumcache::testing {

bool RedisProcess::installed() {
  return access(kRedisServerProgram, X_OK) == 0 && access(kRedisCliProgram, X_OK) == 0;
}

RedisProcess::RedisProcess() = default;
RedisProcess::~RedisProcess() { stop(); }

std::string RedisProcess::start(const RedisProcessOptions& options,
                                std::chrono::milliseconds timeout) {
  if (process_) return "RedisProcess already started";
  options_ = options;
  port_ = free_port();
  return launch(timeout);
}

std::string RedisProcess::launch(std::chrono::milliseconds timeout) {
  const std::string port = std::to_string(port_);
  std::vector<std::string> args = {
      "--bind", "127.0.0.1",   "--dir", data_.path().string(), "--logfile",
      "",       "--daemonize", "no",    "--protected-mode",    "no"};
  if (options_.tls_cert.empty()) {
    args.insert(args.end(), {"--port", port});
  } else {
    args.insert(args.end(),
                {"--port", "0", "--tls-port", port, "--tls-cert-file", options_.tls_cert.string(),
                 "--tls-key-file", options_.tls_key.string(), "--tls-auth-clients", "no"});
    if (!options_.tls_ca.empty())
      args.insert(args.end(), {"--tls-ca-cert-file", options_.tls_ca.string()});
  }
  if (!options_.persistence) args.insert(args.end(), {"--save", "", "--appendonly", "no"});
  if (!options_.requirepass.empty())
    args.insert(args.end(), {"--requirepass", options_.requirepass});
  if (!options_.acl_user.empty())
    args.insert(args.end(), {"--user", options_.acl_user, "on", ">" + options_.acl_password, "~*",
                             "&*", "+@all"});
  args.insert(args.end(), options_.extra.begin(), options_.extra.end());

  process_ = std::make_unique<DaemonProcess>();
  if (auto ec = process_->start(kRedisServerProgram, args)) return "redis-server: " + ec.message();
  if (!process_->wait_for_line("Ready to accept connections", timeout))
    return "redis-server did not become ready on port " + port + ": " + log() +
           process_->output(Output::err);
  return {};
}

void RedisProcess::stop() {
  if (!process_ || process_->pid() <= 0 || !process_->running()) return;
  if (!process_->stop(SIGTERM, std::chrono::seconds(10))) process_->kill_hard();
}

std::string RedisProcess::restart(std::chrono::milliseconds timeout) {
  if (!process_) return "RedisProcess never started";
  stop();
  return launch(timeout);
}

bool RedisProcess::running() { return process_ && process_->running(); }

std::string RedisProcess::log() const { return process_ ? process_->output(Output::out) : ""; }

std::string RedisProcess::cli(const std::vector<std::string>& args,
                              std::chrono::milliseconds timeout) const {
  std::vector<std::string> argv = {"-h", "127.0.0.1", "-p", std::to_string(port_)};
  if (!options_.tls_cert.empty()) {
    argv.insert(argv.end(), {"--tls"});
    if (!options_.tls_ca.empty()) argv.insert(argv.end(), {"--cacert", options_.tls_ca.string()});
  }
  if (!options_.acl_user.empty()) {
    argv.insert(argv.end(), {"--user", options_.acl_user, "--pass", options_.acl_password});
  } else if (!options_.requirepass.empty()) {
    argv.insert(argv.end(), {"--pass", options_.requirepass});
  }
  argv.insert(argv.end(), {"--no-auth-warning"});
  argv.insert(argv.end(), args.begin(), args.end());
  DaemonProcess cli;
  if (cli.start(kRedisCliProgram, argv)) return {};
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (cli.running() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  if (cli.running()) cli.kill_hard();
  return cli.output(Output::out);
}

}  // namespace sumcache::testing
