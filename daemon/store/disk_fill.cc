#include "daemon/store/disk_fill.h"

#include "daemon/store/store.h"
#include "daemon/store/store_error.h"

namespace sumcache::daemon {

DiskFill::DiskFill(Store& store, ObjectPtr object, StreamedObjectFile file)
    : store_(store), object_(std::move(object)), file_(std::move(file)) {}

DiskFill::~DiskFill() = default;

std::error_code DiskFill::append(std::string_view bytes) {
  if (done_) return make_error_code(StoreErrc::stale);
  if (bytes.size() > object_->body_size - body_written_) {
    return fail(StoreErrc::fill_incomplete);
  }
  if (auto ec = file_.append(bytes)) return fail(ec);
  body_written_ += bytes.size();
  return {};
}

std::error_code DiskFill::commit() {
  if (done_) return make_error_code(StoreErrc::stale);
  if (body_written_ != object_->body_size) return fail(StoreErrc::fill_incomplete);
  auto size = file_.finish(store_.options_.fsync);
  if (!size) return fail(size.error());
  done_ = true;
  return store_.adopt_fill(object_, file_, *size);
}

std::error_code DiskFill::fail(std::error_code ec) {
  done_ = true;
  store_.note_fill_error(file_.temp_path(), ec);
  return ec;
}

}  // namespace sumcache::daemon
