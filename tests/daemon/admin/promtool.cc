#include "tests/daemon/admin/promtool.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include "tests/support/temp_dir.h"

namespace sumcache::testing {
namespace {

std::optional<std::filesystem::path> find_in_path(std::string_view program) {
  const char* path = std::getenv("PATH");
  std::string_view dirs = path != nullptr ? path : "";
  while (!dirs.empty()) {
    const auto colon = dirs.find(':');
    const std::filesystem::path candidate = std::filesystem::path(dirs.substr(0, colon)) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    dirs = colon == std::string_view::npos ? std::string_view() : dirs.substr(colon + 1);
  }
  return std::nullopt;
}

}  // namespace

PromtoolCheck promtool_check(const std::string& metrics_text) {
  const auto promtool = find_in_path("promtool");
  if (!promtool) {
    return {false, "promtool is not in PATH: install Debian's prometheus package (scripts/setup)"};
  }
  TempDir dir;
  const auto input = dir.path() / "metrics.txt";
  const auto output = dir.path() / "promtool.out";
  std::ofstream(input) << metrics_text;
  const std::string command = "'" + promtool->string() + "' check metrics < '" + input.string() +
                              "' > '" + output.string() + "' 2>&1";
  const int status = std::system(command.c_str());
  std::stringstream text;
  text << std::ifstream(output).rdbuf();
  const bool passed = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return {passed, text.str()};
}

}  // namespace sumcache::testing
