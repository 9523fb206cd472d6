#include "daemon/store/object_file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <utility>

#include "daemon/store/checksum_stream.h"
#include "daemon/store/object_path.h"
#include "daemon/store/store_error.h"
#include "filters/byte_io.h"

namespace sumcache::daemon {
namespace {

constexpr std::size_t kFirstRead = 4096;      // one pread covers most headers
constexpr std::size_t kCopyChunk = 1 << 20;   // streaming unit for rewrites and checks
constexpr std::size_t kBodyBytesOffset = 56;  // Prelude::body_bytes in the file

std::error_code last_error() { return {errno, std::system_category()}; }

std::error_code pread_exact(int fd, void* data, std::size_t n, std::uint64_t offset) {
  auto* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return last_error();
    if (got == 0) return StoreErrc::truncated;
    p += got;
    n -= static_cast<std::size_t>(got);
    offset += static_cast<std::uint64_t>(got);
  }
  return {};
}

std::error_code write_all(int fd, const void* data, std::size_t n) {
  const auto* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t put = ::write(fd, p, n);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) return last_error();
    p += put;
    n -= static_cast<std::size_t>(put);
  }
  return {};
}

std::uint64_t read_checksum(std::span<const std::uint8_t, kChecksumBytes> bytes) {
  return filters::ByteReader(bytes).le<std::uint64_t>();
}

// Object directories are made on first use: 4096 of them up front would slow
// every first start (and every test's) and stay mostly empty in a small cache.
std::error_code ensure_parent_dirs(const std::string& path) {
  const std::size_t name = path.rfind('/');
  const std::size_t inner = path.rfind('/', name - 1);
  for (std::size_t end : {inner, name}) {
    const std::string dir = path.substr(0, end);
    if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return last_error();
  }
  return {};
}

std::error_code sync_parent_dir(const std::string& path) {
  const std::string dir = path.substr(0, path.rfind('/'));
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (fd.get() < 0) return last_error();
  return ::fsync(fd.get()) == 0 ? std::error_code{} : last_error();
}

// Starts writing the file's pages to the device now, without waiting, so a
// fill's dirty pages are not written back in one burst ~30 s later by kernel
// threads that take the workers' cores (docs/store.md, "Disk tier"). A hint:
// on failure the kernel writes the pages later, as without it.
void start_writeback(int fd) {
  static_cast<void>(::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE));
}

// A temp file being written; removed unless committed.
class TempFile {
 public:
  explicit TempFile(const std::string& path) : path_(path), temp_(temp_path_for(path)) {}
  ~TempFile() {
    if (!committed_) ::unlink(temp_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  std::error_code create() {
    const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
    fd_ = UniqueFd(::open(temp_.c_str(), flags, 0644));
    if (fd_.get() < 0 && errno == ENOENT) {
      if (auto ec = ensure_parent_dirs(path_)) return ec;
      fd_ = UniqueFd(::open(temp_.c_str(), flags, 0644));
    }
    return fd_.get() < 0 ? last_error() : std::error_code{};
  }
  std::error_code write(const void* data, std::size_t n) {
    written_ += n;
    return write_all(fd_.get(), data, n);
  }
  // Appends the checksum, optionally makes file and rename durable, renames.
  std::error_code commit(std::uint64_t checksum, bool fsync) {
    std::vector<std::uint8_t> trailer;
    filters::put_le(trailer, checksum);
    if (auto ec = write(trailer.data(), trailer.size())) return ec;
    if (fsync) {
      if (::fsync(fd_.get()) != 0) return last_error();
    } else {
      start_writeback(fd_.get());
    }
    if (::close(fd_.release()) != 0) return last_error();
    if (::rename(temp_.c_str(), path_.c_str()) != 0) return last_error();
    committed_ = true;
    return fsync ? sync_parent_dir(path_) : std::error_code{};
  }
  std::uint64_t written() const { return written_; }

 private:
  std::string path_;
  std::string temp_;
  UniqueFd fd_;
  std::uint64_t written_ = 0;
  bool committed_ = false;
};

}  // namespace

UniqueFd::~UniqueFd() {
  if (fd_ >= 0) ::close(fd_);
}

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

int UniqueFd::release() { return std::exchange(fd_, -1); }

Result<OpenObjectFile> open_object_file(const std::string& path, const FileLimits& limits) {
  OpenObjectFile file;
  file.fd = UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (file.fd.get() < 0) return last_error();
  struct stat st {};
  if (::fstat(file.fd.get(), &st) != 0) return last_error();
  const auto file_bytes = static_cast<std::uint64_t>(st.st_size);
  std::vector<std::uint8_t>& bytes = file.header_bytes;
  bytes.resize(static_cast<std::size_t>(std::min<std::uint64_t>(file_bytes, kFirstRead)));
  if (auto ec = pread_exact(file.fd.get(), bytes.data(), bytes.size(), 0)) return ec;
  auto prelude = decode_prelude(bytes, file_bytes, limits.max_body_bytes, limits.hasher);
  if (!prelude) return prelude.error();
  // decode_prelude checked header_bytes against its caps and the file size.
  const std::size_t have = bytes.size();
  bytes.resize(prelude->header_bytes);
  if (bytes.size() > have) {
    if (auto ec = pread_exact(file.fd.get(), bytes.data() + have, bytes.size() - have, have)) {
      return ec;
    }
  }
  auto header = decode_header(*prelude, bytes, limits.hasher);
  if (!header) return header.error();
  file.header = std::move(header).value();
  return file;
}

std::error_code read_body_range(const OpenObjectFile& file, std::uint64_t offset,
                                std::span<char> out) {
  const Prelude& p = file.header.prelude;
  if (offset > p.body_bytes || out.size() > p.body_bytes - offset) {
    return std::make_error_code(std::errc::invalid_argument);
  }
  return pread_exact(file.fd.get(), out.data(), out.size(), p.header_bytes + offset);
}

Result<std::uint64_t> read_trailer_checksum(const OpenObjectFile& file) {
  std::array<std::uint8_t, kChecksumBytes> trailer{};
  const Prelude& p = file.header.prelude;
  if (auto ec = pread_exact(file.fd.get(), trailer.data(), trailer.size(),
                            p.header_bytes + p.body_bytes)) {
    return ec;
  }
  return read_checksum(trailer);
}

Result<std::shared_ptr<const std::string>> read_verified_body(const OpenObjectFile& file) {
  const Prelude& p = file.header.prelude;
  auto body = std::make_shared<std::string>(static_cast<std::size_t>(p.body_bytes), '\0');
  if (auto ec = pread_exact(file.fd.get(), body->data(), body->size(), p.header_bytes)) return ec;
  const auto expected = read_trailer_checksum(file);
  if (!expected) return expected.error();
  ChecksumStream sum;
  sum.update(file.header_bytes);
  sum.update(*body);
  if (sum.digest() != *expected) return make_error_code(StoreErrc::checksum_mismatch);
  return std::shared_ptr<const std::string>(std::move(body));
}

std::error_code verify_object_file(const OpenObjectFile& file) {
  const Prelude& p = file.header.prelude;
  ChecksumStream sum;
  sum.update(file.header_bytes);
  std::vector<char> chunk(
      static_cast<std::size_t>(std::min<std::uint64_t>(p.body_bytes, kCopyChunk)));
  for (std::uint64_t done = 0; done < p.body_bytes;) {
    const auto n =
        static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), p.body_bytes - done));
    if (auto ec = pread_exact(file.fd.get(), chunk.data(), n, p.header_bytes + done)) return ec;
    sum.update(std::string_view(chunk.data(), n));
    done += n;
  }
  const auto expected = read_trailer_checksum(file);
  if (!expected) return expected.error();
  return sum.digest() == *expected ? std::error_code{} : StoreErrc::checksum_mismatch;
}

Result<std::uint64_t> write_object_file(const std::string& path,
                                        std::span<const std::uint8_t> header, std::string_view body,
                                        bool fsync) {
  TempFile out(path);
  if (auto ec = out.create()) return ec;
  if (auto ec = out.write(header.data(), header.size())) return ec;
  if (auto ec = out.write(body.data(), body.size())) return ec;
  ChecksumStream sum;
  sum.update(header);
  sum.update(body);
  if (auto ec = out.commit(sum.digest(), fsync)) return ec;
  return out.written();
}

Result<std::uint64_t> rewrite_object_header(const std::string& path,
                                            std::span<const std::uint8_t> header,
                                            const FileLimits& limits, bool fsync) {
  auto old = open_object_file(path, limits);
  if (!old) return old.error();
  const std::uint64_t body_bytes = old->header.prelude.body_bytes;
  if (header.size() < kPreludeBytes ||
      filters::ByteReader(header.subspan(kBodyBytesOffset)).le<std::uint64_t>() != body_bytes) {
    return make_error_code(StoreErrc::inconsistent_header);
  }
  TempFile out(path);
  if (auto ec = out.create()) return ec;
  if (auto ec = out.write(header.data(), header.size())) return ec;
  ChecksumStream old_sum;
  ChecksumStream new_sum;
  old_sum.update(old->header_bytes);
  new_sum.update(header);
  std::vector<char> chunk(
      static_cast<std::size_t>(std::min<std::uint64_t>(body_bytes, kCopyChunk)));
  for (std::uint64_t done = 0; done < body_bytes;) {
    const auto n =
        static_cast<std::size_t>(std::min<std::uint64_t>(chunk.size(), body_bytes - done));
    if (auto ec = read_body_range(*old, done, std::span<char>(chunk.data(), n))) return ec;
    old_sum.update(std::string_view(chunk.data(), n));
    new_sum.update(std::string_view(chunk.data(), n));
    if (auto ec = out.write(chunk.data(), n)) return ec;
    done += n;
  }
  const auto expected = read_trailer_checksum(*old);
  if (!expected) return expected.error();
  if (old_sum.digest() != *expected) return make_error_code(StoreErrc::checksum_mismatch);
  if (auto ec = out.commit(new_sum.digest(), fsync)) return ec;
  return out.written();
}

StreamedObjectFile::StreamedObjectFile(std::string temp_path, UniqueFd fd)
    : temp_(std::move(temp_path)), fd_(std::move(fd)), sum_(std::make_unique<ChecksumStream>()) {}

StreamedObjectFile::StreamedObjectFile(StreamedObjectFile&& other) noexcept
    : temp_(std::move(other.temp_)),
      fd_(std::move(other.fd_)),
      sum_(std::move(other.sum_)),
      written_(other.written_),
      kept_(std::exchange(other.kept_, true)) {}

StreamedObjectFile::~StreamedObjectFile() {
  if (!kept_) ::unlink(temp_.c_str());
}

Result<StreamedObjectFile> StreamedObjectFile::create(std::string temp_path,
                                                      const std::string& final_path,
                                                      std::span<const std::uint8_t> header) {
  const int flags = O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC;
  UniqueFd fd(::open(temp_path.c_str(), flags, 0644));
  if (fd.get() < 0 && errno == ENOENT) {
    if (auto ec = ensure_parent_dirs(final_path)) return ec;
    fd = UniqueFd(::open(temp_path.c_str(), flags, 0644));
  }
  if (fd.get() < 0) return last_error();
  StreamedObjectFile file(std::move(temp_path), std::move(fd));
  if (auto ec = write_all(file.fd_.get(), header.data(), header.size())) return ec;
  file.sum_->update(header);
  file.written_ = header.size();
  return file;
}

std::error_code StreamedObjectFile::append(std::string_view bytes) {
  if (auto ec = write_all(fd_.get(), bytes.data(), bytes.size())) return ec;
  sum_->update(bytes);
  written_ += bytes.size();
  return {};
}

Result<std::uint64_t> StreamedObjectFile::finish(bool fsync) {
  std::vector<std::uint8_t> trailer;
  filters::put_le(trailer, sum_->digest());
  if (auto ec = write_all(fd_.get(), trailer.data(), trailer.size())) return ec;
  written_ += trailer.size();
  if (fsync) {
    if (::fsync(fd_.get()) != 0) return last_error();
  } else {
    start_writeback(fd_.get());
  }
  if (::close(fd_.release()) != 0) return last_error();
  return written_;
}

std::error_code place_file(const std::string& temp_path, const std::string& path, bool fsync) {
  if (auto ec = ensure_parent_dirs(path)) return ec;
  if (::rename(temp_path.c_str(), path.c_str()) != 0) return last_error();
  return fsync ? sync_parent_dir(path) : std::error_code{};
}

std::error_code remove_file(const std::string& path) {
  // ENOTDIR: a path through a non-directory cannot hold the file either.
  if (::unlink(path.c_str()) == 0 || errno == ENOENT || errno == ENOTDIR) return {};
  return last_error();
}

std::error_code move_file(const std::string& from, const std::string& to) {
  if (auto ec = ensure_parent_dirs(to)) return ec;
  return ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0
             ? std::error_code{}
             : last_error();
}

}  // namespace sumcache::daemon
