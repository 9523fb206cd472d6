#include "tests/support/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace sumcache::testing {

TempDir::TempDir() {
  // mkdtemp, not a name of our own: it creates the directory atomically with mode 0700.
  std::string pattern = (std::filesystem::temp_directory_path() / "sumcache-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::system_error(errno, std::system_category(), "mkdtemp " + pattern);
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace sumcache::testing
