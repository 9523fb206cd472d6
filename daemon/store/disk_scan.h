#pragma once
// Opening the disk tier: walk its directory, keep every valid object file,
// remove the rest. A restart loses no valid object.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/store/object_file_io.h"
#include "daemon/store/object_tags.h"
#include "filters/hashing.h"
#include "filters/result.h"

namespace sumcache::daemon {

struct DiskRecord {
  filters::Hash128 hash;
  std::uint64_t variant_hash = 0;
  std::uint64_t file_bytes = 0;
  std::uint64_t sequence = 0;
  std::string key;      // for the key names of prefix purges
  std::string variant;  // for its group (StoreOptions::variant_group)
  ObjectTags tags;      // from the stored head, so that a restart keeps the tag index
};

struct DiskScan {
  std::vector<DiskRecord> records;  // the valid object files
  std::uint64_t removed = 0;        // damaged, partial and temp files removed
};

// Each file is checked as a read checks it (sizes, caps, header checksum, key
// hash, name), and whole when verify_bodies is set. Temp files and files that
// fail are removed, each logged with its path and reason; files whose names
// are not the store's, and files that cannot be read for other reasons
// (permissions, I/O errors), are logged and left alone.
Result<DiskScan> scan_disk_tier(const std::string& root, const FileLimits& limits,
                                bool verify_bodies, const TagRules& tag_rules,
                                const std::function<void(std::string_view)>& log);

}  // namespace sumcache::daemon
