#include "tests/support/run_program.h"

#include "tests/support/daemon_process.h"

namespace sumcache::testing {

Finished run_program(std::vector<std::string> argv, const std::filesystem::path& input,
                     std::chrono::seconds timeout) {
  std::filesystem::path program = argv.front();
  argv.erase(argv.begin());
  if (!input.empty()) {
    argv.insert(argv.begin(), {"-c", R"(exec "$@" < "$0")", input.string(), program.string()});
    program = "/bin/sh";
  }
  DaemonProcess process;
  if (process.start(program, argv)) return {};
  const auto exit = process.stop(0, timeout);
  return {exit ? exit->code : -1, process.output(Output::out), process.output(Output::err)};
}

}  // namespace sumcache::testing
