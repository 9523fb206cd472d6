#pragma once
// File operations of the disk tier on POSIX descriptors (open, pread, write,
// fsync, rename, unlink), each failure a std::error_code: errno codes from the
// system, StoreErrc for a bad file. Writes go to path + ".tmp" and are renamed
// into place, so a reader sees an old file or a new one, never half of one.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "daemon/store/checksum_stream.h"
#include "daemon/store/object_file.h"
#include "filters/hashing.h"
#include "filters/result.h"

namespace sumcache::daemon {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd();
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  int release();

 private:
  int fd_ = -1;
};

// An object file opened for reading, its prelude and header checked.
struct OpenObjectFile {
  UniqueFd fd;
  ObjectHeader header;
  std::vector<std::uint8_t> header_bytes;  // the file checksum covers them
};

struct FileLimits {
  std::uint64_t max_body_bytes = 0;
  filters::Hasher hasher;
};

Result<OpenObjectFile> open_object_file(const std::string& path, const FileLimits& limits);
// Fills out from the body at offset; out must end within the body.
std::error_code read_body_range(const OpenObjectFile& file, std::uint64_t offset,
                                std::span<char> out);
// The file checksum stored after the body.
Result<std::uint64_t> read_trailer_checksum(const OpenObjectFile& file);
// Reads the body whole and verifies the file checksum.
Result<std::shared_ptr<const std::string>> read_verified_body(const OpenObjectFile& file);
// Verifies the file checksum without keeping the body (reads in chunks).
std::error_code verify_object_file(const OpenObjectFile& file);

// Returns the size of the file written.
Result<std::uint64_t> write_object_file(const std::string& path,
                                        std::span<const std::uint8_t> header, std::string_view body,
                                        bool fsync);
// Replaces the file at path by one with the new header and the old file's
// body, streamed and verified on the way (a 304 refresh of a disk-only object).
Result<std::uint64_t> rewrite_object_header(const std::string& path,
                                            std::span<const std::uint8_t> header,
                                            const FileLimits& limits, bool fsync);
// An object file written in pieces while its body arrives (a fill larger than
// the memory tier): the header at create, the body by append, the checksum at
// finish, all under `temp_path`. The file is removed on destruction unless
// keep() was called: then whoever renames it into place owns it.
class StreamedObjectFile {
 public:
  // Makes the object's directories as needed (they are `final_path`'s).
  static Result<StreamedObjectFile> create(std::string temp_path, const std::string& final_path,
                                           std::span<const std::uint8_t> header);
  StreamedObjectFile(StreamedObjectFile&&) noexcept;
  StreamedObjectFile& operator=(StreamedObjectFile&&) = delete;
  StreamedObjectFile(const StreamedObjectFile&) = delete;
  ~StreamedObjectFile();

  std::error_code append(std::string_view bytes);
  // Appends the checksum, syncs (or starts the writeback), closes; returns
  // the file's size.
  Result<std::uint64_t> finish(bool fsync);
  void keep() { kept_ = true; }
  const std::string& temp_path() const { return temp_; }

 private:
  StreamedObjectFile(std::string temp_path, UniqueFd fd);

  std::string temp_;
  UniqueFd fd_;
  std::unique_ptr<ChecksumStream> sum_;
  std::uint64_t written_ = 0;
  bool kept_ = false;
};

// Renames a finished StreamedObjectFile over `path` (replacing what is
// there), durably with fsync.
std::error_code place_file(const std::string& temp_path, const std::string& path, bool fsync);

// A missing file counts as removed.
std::error_code remove_file(const std::string& path);
// Renames from to to, making to's two directory levels first; never replaces
// an existing file at to (EEXIST).
std::error_code move_file(const std::string& from, const std::string& to);

}  // namespace sumcache::daemon
