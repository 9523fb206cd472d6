#pragma once
// A response written to the disk tier while it streams to the client, for a
// body larger than the memory tier takes (docs/store.md, "Disk-only fills").
// The object joins the index and the counting filter only at commit(); until
// then it is a temp file that the store's scan removes after a crash. Its
// calls do file I/O: run them on the store's I/O pool (Store::post_io), one
// at a time. Must not outlive its Store.

#include <cstdint>
#include <string_view>
#include <system_error>

#include "daemon/store/object_file_io.h"
#include "daemon/store/stored_object.h"

namespace sumcache::daemon {

class Store;

class DiskFill {
 public:
  ~DiskFill();  // not committed: the temp file is removed
  DiskFill(const DiskFill&) = delete;
  DiskFill& operator=(const DiskFill&) = delete;

  // Appends body bytes; past the declared body_size it fails.
  std::error_code append(std::string_view bytes);
  // With exactly body_size bytes appended: the file is finished and queued to
  // take the object's path; the object is in the index and the filter when
  // this returns without error. A failed fill is counted and logged.
  std::error_code commit();
  std::uint64_t body_written() const { return body_written_; }

 private:
  friend class Store;
  DiskFill(Store& store, ObjectPtr object, StreamedObjectFile file);
  std::error_code fail(std::error_code ec);

  Store& store_;
  ObjectPtr object_;  // head and meta; body null, body_size as declared
  StreamedObjectFile file_;
  std::uint64_t body_written_ = 0;
  bool done_ = false;  // committed, or failed: no more calls
};

}  // namespace sumcache::daemon
