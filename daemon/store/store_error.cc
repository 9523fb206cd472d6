#include "daemon/store/store_error.h"

#include <string>

namespace sumcache::daemon {
namespace {

class StoreCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "sumcache.store"; }

  std::string message(int value) const override {
    switch (static_cast<StoreErrc>(value)) {
      case StoreErrc::ok:
        return "success";
      case StoreErrc::invalid_options:
        return "store options are out of range or inconsistent";
      case StoreErrc::invalid_object:
        return "object has no body or a wrong body_size";
      case StoreErrc::too_large:
        return "object exceeds max_object_bytes or every tier's budget";
      case StoreErrc::field_too_large:
        return "key, variant, meta or head exceeds its cap";
      case StoreErrc::not_found:
        return "no such object";
      case StoreErrc::stale:
        return "object was replaced or changed since it was found";
      case StoreErrc::key_mismatch:
        return "stored key differs from the requested key";
      case StoreErrc::disk_disabled:
        return "the store has no disk tier";
      case StoreErrc::disk_in_use:
        return "another store has the disk tier's directory open";
      case StoreErrc::queue_full:
        return "disk write queue full and the object does not fit in memory";
      case StoreErrc::bad_magic:
        return "not an object file (bad magic)";
      case StoreErrc::unsupported_version:
        return "unsupported object file version";
      case StoreErrc::inconsistent_header:
        return "object file header is inconsistent";
      case StoreErrc::truncated:
        return "object file is truncated";
      case StoreErrc::checksum_mismatch:
        return "object file checksum mismatch: damaged";
      case StoreErrc::hasher_mismatch:
        return "object file was hashed with another hasher";
      case StoreErrc::too_many_tags:
        return "more tags than cache.max_tags_per_object";
      case StoreErrc::tag_index_full:
        return "the tag index is full (cache.tag_index_max_entries)";
      case StoreErrc::fill_incomplete:
        return "the body written to disk is not the declared length";
    }
    return "unknown store error";
  }
};

}  // namespace

const std::error_category& store_category() noexcept {
  static const StoreCategory category;
  return category;
}

bool is_damage(std::error_code ec) noexcept {
  if (ec == std::errc::no_such_file_or_directory) return true;  // the index says it is there
  if (ec.category() != store_category()) return false;
  switch (static_cast<StoreErrc>(ec.value())) {
    case StoreErrc::bad_magic:
    case StoreErrc::unsupported_version:
    case StoreErrc::inconsistent_header:
    case StoreErrc::truncated:
    case StoreErrc::checksum_mismatch:
    case StoreErrc::hasher_mismatch:
    case StoreErrc::field_too_large:
    case StoreErrc::too_large:
      return true;
    default:
      return false;
  }
}

}  // namespace sumcache::daemon
