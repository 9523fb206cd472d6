// sumcached: the sumcache caching proxy daemon. Thin: parse the command line,
// load the config (the only place exceptions are used), build the server.
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string_view>

#include "config/default_config.h"
#include "config/load_config.h"
#include "daemon/app/daemon_app.h"

namespace {

constexpr std::string_view kUsage =
    "usage: sumcached [--config FILE]      run (default: the embedded single-node config)\n"
    "       sumcached --check-config FILE  validate FILE and exit (0 when valid)\n"
    "       sumcached --print-default-config\n"
    "       sumcached --help | --version\n";

int fail_usage(std::string_view message) {
  std::cerr << "sumcached: " << message << "\n" << kUsage;
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string config_path;
  bool check_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << kUsage;
      return 0;
    }
    if (arg == "--version") {
      std::cout << "sumcached " << sumcache::daemon::kVersion << "\n";
      return 0;
    }
    if (arg == "--print-default-config") {
      std::cout << sumcache::config::default_config_json() << "\n";
      return 0;
    }
    if ((arg == "--config" || arg == "--check-config") && i + 1 < argc) {
      check_only = check_only || arg == "--check-config";
      config_path = argv[++i];
      continue;
    }
    return fail_usage("unknown or incomplete argument '" + std::string(arg) + "'");
  }
  sumcache::config::Config config;
  try {
    config = config_path.empty() ? sumcache::config::default_config()
                                 : sumcache::config::load_config_file(config_path);
  } catch (const std::exception& e) {
    std::cerr << "sumcached: config error: " << e.what() << "\n";
    return 2;
  }
  if (check_only) {
    std::cout << "sumcached: " << config_path << " is valid\n";
    return 0;
  }
  return sumcache::daemon::run_daemon(std::move(config), config_path);
}
