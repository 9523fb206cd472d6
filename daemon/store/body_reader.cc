#include "daemon/store/body_reader.h"

#include <algorithm>
#include <cstring>

#include "daemon/store/store.h"
#include "daemon/store/store_error.h"

namespace sumcache::daemon {

BodyReader::BodyReader(Store& store, OpenObjectFile file, std::uint64_t variant_hash,
                       std::uint32_t version, bool settled)
    : store_(&store),
      file_(std::move(file)),
      variant_hash_(variant_hash),
      version_(version),
      settled_(settled) {
  checksum_.update(file_.header_bytes);
}

std::uint64_t BodyReader::size() const {
  return memory_ ? memory_->size() : file_.header.prelude.body_bytes;
}

Result<std::size_t> BodyReader::read(std::uint64_t offset, std::span<char> out) {
  if (offset >= size()) return std::size_t{0};
  const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(out.size(), size() - offset));
  if (memory_) {
    std::memcpy(out.data(), memory_->data() + offset, n);
  } else if (auto ec = read_file(offset, out.first(n))) {
    return ec;
  }
  return n;
}

std::error_code BodyReader::read_file(std::uint64_t offset, std::span<char> out) {
  if (auto ec = read_body_range(file_, offset, out)) return report(ec);
  if (offset > in_order_) {
    in_order_broken_ = true;  // a gap: the checksum can no longer be completed
  } else if (!in_order_broken_ && offset + out.size() > in_order_) {
    const auto fresh = static_cast<std::size_t>(in_order_ - offset);
    checksum_.update(std::string_view(out.data() + fresh, out.size() - fresh));
    in_order_ = offset + out.size();
    if (in_order_ == size()) return check_end();
  }
  return {};
}

std::error_code BodyReader::check_end() {
  const auto expected = read_trailer_checksum(file_);
  if (!expected) return report(expected.error());
  if (checksum_.digest() != *expected) return report(StoreErrc::checksum_mismatch);
  return {};
}

std::error_code BodyReader::report(std::error_code ec) {
  if (settled_)
    store_->report_read_error(file_.header.prelude.key_hash, variant_hash_, version_, ec);
  return ec;
}

}  // namespace sumcache::daemon
