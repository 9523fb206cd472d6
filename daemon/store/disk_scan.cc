#include "daemon/store/disk_scan.h"

#include <unistd.h>

#include <filesystem>
#include <utility>

#include "daemon/store/object_path.h"
#include "daemon/store/store_error.h"

namespace sumcache::daemon {
namespace {

namespace fs = std::filesystem;

using Log = std::function<void(std::string_view)>;

void say(const Log& log, const std::string& line) {
  if (log) log(line);
}

// Checks one file named like an object file; returns its record or why not.
Result<DiskRecord> check_file(const std::string& path, const ObjectName& name,
                              const FileLimits& limits, bool verify_bodies,
                              const TagRules& tag_rules) {
  auto file = open_object_file(path, limits);
  if (!file) return file.error();
  const Prelude& p = file->header.prelude;
  if (p.key_hash != name.hash ||
      variant_hash(limits.hasher, file->header.variant) != name.variant_hash) {
    return make_error_code(StoreErrc::inconsistent_header);  // misnamed
  }
  if (verify_bodies) {
    if (auto ec = verify_object_file(*file)) return ec;
  }
  return DiskRecord{name.hash,
                    name.variant_hash,
                    p.file_bytes(),
                    p.sequence,
                    std::move(file->header.key),
                    std::move(file->header.variant),
                    object_tags(file->header.head, tag_rules)};
}

}  // namespace

Result<DiskScan> scan_disk_tier(const std::string& root, const FileLimits& limits,
                                bool verify_bodies, const TagRules& tag_rules, const Log& log) {
  DiskScan scan;
  const auto remove_bad = [&](const std::string& path, const std::string& reason) {
    if (auto ec = remove_file(path)) {
      say(log, "store: cannot remove " + path + " (" + reason + "): " + ec.message());
      return;
    }
    ++scan.removed;
    say(log, "store: removed " + path + ": " + reason);
  };
  const auto admit = [&](const std::string& path, const ObjectName& name) {
    auto checked = check_file(path, name, limits, verify_bodies, tag_rules);
    if (checked) {
      scan.records.push_back(std::move(checked).value());
    } else if (is_damage(checked.error())) {
      remove_bad(path, checked.error().message());
    } else {
      say(log, "store: leaving " + path + " out of the index: " + checked.error().message());
    }
  };
  // Files of the earlier layout are moved after the walk, which would
  // otherwise meet them again at their new place.
  std::vector<std::pair<std::string, ObjectName>> legacy;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, ec);
  if (ec) return ec;
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) return ec;
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    const std::string path = it->path().string();
    const std::string relative = it->path().lexically_relative(root).string();
    if (relative == kLockFileName) continue;
    if (relative.ends_with(kTempSuffix)) {
      remove_bad(path, "temp file of an interrupted write");
      continue;
    }
    const auto name = parse_object_path(relative);
    if (!name) {
      say(log, "store: ignoring " + path + ": not an object file name");
    } else if (name->legacy) {
      legacy.emplace_back(path, *name);
    } else {
      admit(path, *name);
    }
  }
  std::size_t moved = 0;
  for (const auto& [old_path, name] : legacy) {
    const std::string path = object_file_path(root, name.hash, name.variant_hash);
    const std::error_code move_ec = move_file(old_path, path);
    if (move_ec == std::errc::file_exists) {
      remove_bad(old_path, "an object file of the same name is already in place");
      continue;
    }
    if (move_ec) {
      say(log, "store: leaving " + old_path + " out of the index: cannot move it to " + path +
                   ": " + move_ec.message());
      continue;
    }
    ++moved;
    admit(path, name);
    // The old directories go once empty; rmdir refuses any that is not.
    const fs::path dir = fs::path(old_path).parent_path();
    ::rmdir(dir.c_str());
    ::rmdir(dir.parent_path().c_str());
  }
  if (moved > 0) {
    say(log, "store: moved " + std::to_string(moved) +
                 " object files into the 16 x 256 directory layout");
  }
  return scan;
}

}  // namespace sumcache::daemon
