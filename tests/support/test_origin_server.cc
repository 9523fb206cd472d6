// test_origin_server: the test origin (test_origin.h) as a process of its own, for
// tests that start it with DaemonProcess and for load benchmarks.
//
//   test_origin_server [--address A] [--port N] [--https --cert PEM --key PEM]
//
// Prints "listening <port>" on stdout once it accepts connections, logs
// "request <method> <target>" on stderr for each request, and exits 0 on SIGTERM
// or SIGINT.

#include <pthread.h>

#include <csignal>
#include <iostream>
#include <optional>
#include <string_view>

#include "tests/support/test_origin.h"

namespace {

using sumcache::testing::OriginOptions;

std::optional<OriginOptions> parse_args(int argc, char** argv) {
  OriginOptions options;
  bool https = false;
  std::filesystem::path cert;
  std::filesystem::path key;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--https") {
      https = true;
    } else if (arg == "--address" && has_value) {
      options.address = argv[++i];
    } else if (arg == "--port" && has_value) {
      const int port = std::atoi(argv[++i]);
      if (port < 0 || port > 65535) return std::nullopt;
      options.port = static_cast<std::uint16_t>(port);
    } else if (arg == "--cert" && has_value) {
      cert = argv[++i];
    } else if (arg == "--key" && has_value) {
      key = argv[++i];
    } else {
      return std::nullopt;
    }
  }
  if (https != (!cert.empty() && !key.empty())) return std::nullopt;
  if (https) options.tls = sumcache::testing::TlsFiles{cert, key};
  options.on_request = [](const sumcache::testing::LoggedRequest& request) {
    std::cerr << "request " << request.method << ' ' << request.target << '\n';
  };
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  // Blocked before any thread starts, so that every thread inherits the mask and the
  // sigwait below is the one place these signals are taken.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  const auto options = parse_args(argc, argv);
  if (!options) {
    std::cerr << "usage: test_origin_server [--address A] [--port N] "
                 "[--https --cert PEM --key PEM]\n";
    return 2;
  }
  sumcache::testing::TestOrigin origin(*options);
  if (const auto ec = origin.start()) {
    std::cerr << "test_origin_server: cannot listen on " << options->address << ':' << options->port
              << ": " << ec.message() << '\n';
    return 1;
  }
  std::cout << "listening " << origin.port() << std::endl;
  int signal = 0;
  sigwait(&stop_signals, &signal);
  origin.stop();
  return 0;
}
