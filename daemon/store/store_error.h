#pragma once
// Error codes of the store, with their std::error_category. I/O failures from
// the operating system come back as std::system_category codes (errno).

#include <system_error>

namespace sumcache::daemon {

enum class StoreErrc {
  ok = 0,
  invalid_options,      // options out of range or inconsistent
  invalid_object,       // no body, or body_size disagrees with the body
  too_large,            // above max_object_bytes or above every tier's budget
  field_too_large,      // key, variant, meta or head above the file format's cap
  not_found,            // no such key (and variant)
  stale,                // replaced or changed since find(): look it up again
  key_mismatch,         // the file or entry holds another key with the same hash
  disk_disabled,        // a disk operation on a store without a disk tier
  queue_full,           // the disk write queue is full and the object does not fit in memory
  disk_in_use,          // another store holds the disk tier's directory
  bad_magic,            // not an object file
  unsupported_version,  // object file written by a format this build cannot read
  inconsistent_header,  // lengths disagree with each other or with the file size
  truncated,            // the file is shorter than its header says
  checksum_mismatch,    // the file is damaged
  hasher_mismatch,      // the file was written with another hash function or seed
  too_many_tags,        // more tags than StoreOptions::tags.max_tags
  tag_index_full,       // the tag index holds max_tag_pairs pairs
  fill_incomplete,      // a disk fill committed with fewer or more body bytes than declared
};

const std::error_category& store_category() noexcept;

inline std::error_code make_error_code(StoreErrc e) noexcept {
  return {static_cast<int>(e), store_category()};
}

// True for the codes that mean the file itself is bad (and is removed).
bool is_damage(std::error_code ec) noexcept;

}  // namespace sumcache::daemon

template <>
struct std::is_error_code_enum<sumcache::daemon::StoreErrc> : std::true_type {};
