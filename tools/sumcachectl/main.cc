// sumcachectl: the operator's client for sumcached's admin endpoint, and an
// offline Bloom filter calculator. Thin: parse, run, exit with its code.
#include <iostream>
#include <string>
#include <vector>

#include "tools/sumcachectl/ctl_commands.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  const auto parsed = sumcache::tools::parse_args(args);
  if (!parsed.error.empty()) {
    std::cerr << "sumcachectl: " << parsed.error << "\n" << sumcache::tools::kUsage;
    return sumcache::tools::kExitError;
  }
  return sumcache::tools::run_command(parsed.command, std::cout, std::cerr);
}
