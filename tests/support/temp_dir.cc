#include "tests/support/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace sumcache::testing {

namespace {

// /dev/shm when there is one: on a disk mounted with `discard` every unlink
// costs about a millisecond, and the store and daemon tests remove thousands.
std::filesystem::path temp_base() {
  std::error_code ec;
  if (std::filesystem::is_directory("/dev/shm", ec)) return "/dev/shm";
  return std::filesystem::temp_directory_path();
}

}  // namespace

TempDir::TempDir() {
  // mkdtemp, not a name of our own: it creates the directory atomically with mode 0700.
  std::string pattern = (temp_base() / "sumcache-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::system_category(), "mkdtemp " + pattern);
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string read_file(const std::filesystem::path& path) {
  std::stringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  return text.str();
}

}  // namespace sumcache::testing
