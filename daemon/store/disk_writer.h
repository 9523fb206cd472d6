#pragma once
// The disk tier's single writer thread. Proxy threads queue file operations
// and never wait for the disk. One thread and one FIFO queue give the
// operations on each path a total order, which the Store relies on to keep
// files and index in step (docs/store.md, "Threads").

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "daemon/store/stored_object.h"
#include "filters/hashing.h"

namespace sumcache::daemon {

struct DiskJob {
  enum class Kind : std::uint8_t {
    write,         // write `object` (with its body) to its path
    rewrite_head,  // give the file at the path the head and meta of `object`
    remove,        // unlink the file at the path
    place,         // rename the finished fill at `temp_path` over the path
  };
  Kind kind = Kind::write;
  filters::Hash128 key_hash;
  std::uint64_t variant_hash = 0;
  std::uint32_t version = 0;  // the entry's version when queued
  ObjectPtr object;
  std::string temp_path;         // place: the fill's file
  std::uint64_t file_bytes = 0;  // place: its size
};

class DiskWriter {
 public:
  using Run = std::function<void(const DiskJob&)>;

  // max_queued_bytes bounds the memory that queued writes hold.
  DiskWriter(Run run, std::uint64_t max_queued_bytes);
  ~DiskWriter();  // runs every queued job, then joins
  DiskWriter(const DiskWriter&) = delete;
  DiskWriter& operator=(const DiskWriter&) = delete;

  // False (nothing queued) when `bytes` would take the queue above its cap;
  // pass 0 for removes, which are always taken.
  bool push(DiskJob job, std::uint64_t bytes);
  // Returns once the queue is empty and no job is running.
  void flush();
  std::size_t queued_jobs() const;
  std::uint64_t queued_bytes() const;

 private:
  struct Queued {
    DiskJob job;
    std::uint64_t bytes;
  };
  void loop();

  Run run_;
  const std::uint64_t max_bytes_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<Queued> queue_;
  std::uint64_t bytes_ = 0;  // of queued and running jobs
  bool busy_ = false;
  bool stop_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace sumcache::daemon
