#pragma once
// Reads a body in chunks, for bodies too large to read whole. For a disk-tier
// body the file stays open, so a replacement renamed over the path meanwhile
// cannot mix two versions into one stream. Reads in order from offset 0 are
// checksummed as they go: the read that reaches the end fails with
// checksum_mismatch if the file is damaged (and the store removes it).
// Out-of-order reads are checked for length only. Must not outlive its Store.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "daemon/store/checksum_stream.h"
#include "daemon/store/object_file_io.h"
#include "filters/result.h"

namespace sumcache::daemon {

class Store;

class BodyReader {
 public:
  std::uint64_t size() const;
  // Fills out from offset up to the end of the body; returns the bytes read
  // (0 at or past the end).
  Result<std::size_t> read(std::uint64_t offset, std::span<char> out);

 private:
  friend class Store;
  explicit BodyReader(std::shared_ptr<const std::string> body) : memory_(std::move(body)) {}
  BodyReader(Store& store, OpenObjectFile file, std::uint64_t variant_hash, std::uint32_t version,
             bool settled);
  std::error_code read_file(std::uint64_t offset, std::span<char> out);
  std::error_code check_end();
  std::error_code report(std::error_code ec);

  std::shared_ptr<const std::string> memory_;  // a memory-resident body, or null
  Store* store_ = nullptr;
  OpenObjectFile file_;
  std::uint64_t variant_hash_ = 0;
  std::uint32_t version_ = 0;
  bool settled_ = false;        // the index entry matched this file when opened
  ChecksumStream checksum_;     // over the bytes read in order so far
  std::uint64_t in_order_ = 0;  // bytes read in order from 0
  bool in_order_broken_ = false;
};

}  // namespace sumcache::daemon
