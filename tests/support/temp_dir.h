#pragma once
// TempDir: a fresh directory under /dev/shm (or the system temp dir), removed with everything
// in it when the object goes away; and reading a file written there whole.

#include <filesystem>
#include <string>

namespace sumcache::testing {

class TempDir {
 public:
  // Throws std::system_error when the directory cannot be made: a test cannot run without it.
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// The file's bytes; "" when it cannot be read.
std::string read_file(const std::filesystem::path& path);

}  // namespace sumcache::testing
