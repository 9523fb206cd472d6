// The disk tier: opening it, the writer's jobs and how they settle into the
// index, and reads with their damage handling (docs/store.md, "Disk tier" and
// "Threads").

#include <fcntl.h>
#include <sys/file.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <filesystem>

#include "daemon/store/disk_scan.h"
#include "daemon/store/object_file.h"
#include "daemon/store/object_path.h"
#include "daemon/store/store.h"
#include "daemon/store/store_error.h"
#include "daemon/store/store_shard.h"

namespace sumcache::daemon {

std::string Store::path_of(const filters::Hash128& hash, std::uint64_t variant_hash) const {
  return object_file_path(options_.disk_path, hash, variant_hash);
}

// One store per directory: a second one would take the first one's temp
// files for leftovers of a crash and remove them, and both would evict files
// the other counts. flock() locks are per open file, so a second Store in the
// same process is refused too.
std::error_code Store::lock_disk_tier() {
  const std::string path = options_.disk_path + "/" + std::string(kLockFileName);
  disk_lock_ = UniqueFd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (disk_lock_.get() < 0) return {errno, std::system_category()};
  if (::flock(disk_lock_.get(), LOCK_EX | LOCK_NB) == 0) return {};
  if (errno == EWOULDBLOCK) return StoreErrc::disk_in_use;
  return {errno, std::system_category()};
}

// Files join the index oldest write first, so the disk LRU starts in write order.
std::error_code Store::open_disk_tier() {
  std::error_code ec;
  std::filesystem::create_directories(options_.disk_path, ec);
  if (ec) return ec;
  if (auto locked = lock_disk_tier()) return locked;
  auto scan = scan_disk_tier(options_.disk_path, limits_, options_.verify_bodies_on_open,
                             options_.tags, options_.log);
  if (!scan) return scan.error();
  bump(counters_.damaged_files_removed, scan->removed);
  std::sort(scan->records.begin(), scan->records.end(),
            [](const DiskRecord& a, const DiskRecord& b) { return a.sequence < b.sequence; });
  for (DiskRecord& r : scan->records) {
    next_sequence_.store(std::max(next_sequence_.load(), r.sequence + 1));
    // The tags come from the stored head, under the bounds of this run: an
    // object they no longer admit goes, or a tag purge would miss it.
    bump(counters_.tags_too_long, r.tags.too_long);
    if (r.tags.too_many) {
      bump(counters_.objects_refused_tags);
      log_tag_problem(
          r.key, "more than " + std::to_string(options_.tags.max_tags) + " tags: its file removed");
      static_cast<void>(remove_file(path_of(r.hash, r.variant_hash)));
      continue;
    }
    Shard& s = shard_of(r.hash);
    const IndexShard::Added added =
        s.index.add_disk_entry(r.hash, r.variant_hash, r.file_bytes, group_of(r.variant));
    s.index.at(added.ref).version = ++s.versions;
    if (added.new_key) {
      filter_.add(r.hash);
      s.names.add(r.hash, r.key);
    }
    bump(counters_.disk_objects);
    bump(counters_.disk_bytes, r.file_bytes);
    if (!set_tags(s, added.ref, std::move(r.tags.tags))) {
      log_tag_problem(r.key, "tag index full: its file removed");
      static_cast<void>(remove_file(path_of(r.hash, r.variant_hash)));
      erase_entry(s, added.ref);  // no writer yet: nothing queued
      continue;
    }
    // Files join oldest first, so the oldest variants go: the cap may have
    // been lowered since they were written.
    if (!added.new_key) cap_variants(s, r.hash, r.key);
  }
  writer_ = std::make_unique<DiskWriter>([this](const DiskJob& job) { run_disk_job(job); },
                                         options_.write_queue_max_bytes);
  enforce_budget(Tier::disk);  // the budget may have shrunk since the files were written
  return {};
}

// Runs on the writer thread. A job whose entry has moved on is skipped: the
// job that moved it (a later write, or a remove) is behind it in the queue.
void Store::run_disk_job(const DiskJob& job) {
  const std::string path = path_of(job.key_hash, job.variant_hash);
  if (job.kind == DiskJob::Kind::remove) {
    if (auto ec = remove_file(path)) {
      bump(counters_.disk_write_errors);
      log_write_error("store: removing " + path + ": " + ec.message());
    }
    return;
  }
  bool current = false;
  {
    Shard& s = shard_of(job.key_hash);
    std::lock_guard lock(s.mutex);
    const EntryRef ref = s.index.find(job.key_hash, job.variant_hash);
    current = ref != kNoEntry && s.index.at(ref).version == job.version;
  }
  if (job.kind == DiskJob::Kind::place) {
    std::error_code ec =
        current ? place_file(job.temp_path, path, options_.fsync) : std::error_code{};
    if (!current || ec) static_cast<void>(remove_file(job.temp_path));
    if (!current) return;
    if (ec) {
      settle_write(job, ec);
    } else {
      bump(counters_.disk_fills);
      settle_write(job, job.file_bytes);
    }
    return;
  }
  if (!current) return;
  const std::vector<std::uint8_t> header =
      encode_header(*job.object, options_.hasher, next_sequence_++);
  if (job.kind == DiskJob::Kind::write) {
    settle_write(job, write_object_file(path, header, *job.object->body, options_.fsync));
  } else {
    settle_write(job, rewrite_object_header(path, header, limits_, options_.fsync));
  }
}

void Store::settle_write(const DiskJob& job, const Result<std::uint64_t>& written) {
  const std::string path = path_of(job.key_hash, job.variant_hash);
  if (written) {
    bump(counters_.disk_writes);
  } else if (is_damage(written.error())) {  // a rewrite found the old file damaged
    bump(counters_.damaged_files_removed);
    log("store: removed damaged object file " + path + ": " + written.error().message());
  } else {
    bump(counters_.disk_write_errors);
    log_write_error("store: writing " + path + ": " + written.error().message());
  }
  Shard& s = shard_of(job.key_hash);
  {
    std::lock_guard lock(s.mutex);
    const EntryRef ref = s.index.find(job.key_hash, job.variant_hash);
    if (ref == kNoEntry || s.index.at(ref).version != job.version) return;
    IndexEntry& e = s.index.at(ref);
    e.write_pending = false;
    e.filling = false;
    if (!written) {
      queue_job(DiskJob::Kind::remove, e, 0);  // whatever older file is at the path
      if (!e.in(Tier::memory)) erase_entry(s, ref);
      return;
    }
    e.disk_bytes = *written;
    s.index.link(Tier::disk, ref);
    bump(counters_.disk_objects);
    bump(counters_.disk_bytes, *written);
    if (!e.in(Tier::memory)) e.object.reset();
  }
  enforce_budget(Tier::disk);
}

void Store::log_write_error(std::string line) {
  const auto held = write_error_log_.admit(LogLimiter::Clock::now());
  if (!held) return;
  line += " (" + std::to_string(read(counters_.disk_write_errors)) + " disk write errors so far";
  if (*held > 0) line += ", " + std::to_string(*held) + " not logged since the last line";
  log(line + ")");
}

Result<Store::FileRead> Store::open_for_read(const StoredObject& object) {
  if (!writer_) return make_error_code(StoreErrc::disk_disabled);
  const std::uint64_t vh = variant_hash(options_.hasher, object.variant);
  std::uint32_t version = 0;
  bool settled = false;
  bool trusted = false;  // the entry's own object: a refreshed head being written
  {
    Shard& s = shard_of(object.hash);
    std::lock_guard lock(s.mutex);
    const EntryRef ref = s.index.find(object.hash, vh);
    if (ref == kNoEntry) return make_error_code(StoreErrc::not_found);
    const IndexEntry& e = s.index.at(ref);
    version = e.version;
    settled = e.in(Tier::disk) && !e.write_pending;
    trusted = e.object.get() == &object && !e.filling;
  }
  auto file = open_object_file(path_of(object.hash, vh), limits_);
  if (!file) {
    if (settled) report_read_error(object.hash, vh, version, file.error());
    return file.error();
  }
  const ObjectHeader& h = file->header;
  if (h.key != object.key) return make_error_code(StoreErrc::key_mismatch);
  if (h.variant != object.variant || h.prelude.body_bytes != object.body_size ||
      (!trusted && (h.meta != object.meta || h.head != object.head))) {
    return make_error_code(StoreErrc::stale);
  }
  return FileRead{std::move(file).value(), vh, version, settled};
}

Result<std::shared_ptr<const std::string>> Store::load_body(const ObjectPtr& object) {
  if (object->body) return object->body;
  auto read = open_for_read(*object);
  if (!read) return read.error();
  auto body = read_verified_body(read->file);
  if (!body) {
    if (read->settled) {
      report_read_error(object->hash, read->variant_hash, read->version, body.error());
    }
    return body.error();
  }
  if (read->settled) promote(*object, *body, read->variant_hash, read->version);
  return body;
}

Result<BodyReader> Store::open_body(const StoredObject& object) {
  if (object.body) return BodyReader(object.body);
  auto read = open_for_read(object);
  if (!read) return read.error();
  return BodyReader(*this, std::move(read->file), read->variant_hash, read->version, read->settled);
}

Result<std::unique_ptr<DiskFill>> Store::begin_disk_fill(StoredObject object) {
  if (!writer_) return make_error_code(StoreErrc::disk_disabled);
  if (object.key.empty() || object.body) return make_error_code(StoreErrc::invalid_object);
  if (auto ec = check_field_caps(object)) return ec;
  if (object_bytes(object) > options_.max_object_bytes ||
      file_bytes_for(object) > options_.disk_max_bytes) {
    return make_error_code(StoreErrc::too_large);
  }
  assert(object.hash == hash_key(object.key) && "StoredObject::hash must be hash_key(key)");
  const std::vector<std::uint8_t> header =
      encode_header(object, options_.hasher, next_sequence_.fetch_add(1));
  const std::string path = path_of(object.hash, variant_hash(options_.hasher, object.variant));
  // Its own name: two fills of one object, or a fill beside a queued write,
  // never share a temp file. The scan removes it after a crash (kTempSuffix).
  std::string temp =
      path + ".fill" + std::to_string(next_fill_id_.fetch_add(1)) + std::string(kTempSuffix);
  auto file = StreamedObjectFile::create(std::move(temp), path, header);
  if (!file) {
    note_fill_error(path, file.error());
    return file.error();
  }
  return std::unique_ptr<DiskFill>(new DiskFill(
      *this, std::make_shared<const StoredObject>(std::move(object)), std::move(file).value()));
}

// As insert(), for an object whose body is only in `file`: the entry gets a
// new version and the head-only object, and a place job that the writer runs
// after every job queued before it for the path.
std::error_code Store::adopt_fill(const ObjectPtr& object, StreamedObjectFile& file,
                                  std::uint64_t file_bytes) {
  auto tags = tags_to_index(*object);
  if (!tags) return tags.error();
  const std::uint64_t vh = variant_hash(options_.hasher, object->variant);
  const std::string group = group_of(object->variant);
  Shard& s = shard_of(object->hash);
  std::error_code ec;
  {
    std::lock_guard lock(s.mutex);
    const EntryRef ref = find_or_add(s, object->hash, vh, object->key, group);
    if (!set_tags(s, ref, std::move(tags).value())) {
      erase_entry(s, ref);
      ec = StoreErrc::tag_index_full;
    } else {
      release_tiers(s, ref);  // the place job replaces whatever file is at the path
      IndexEntry& e = s.index.at(ref);
      e.version = ++s.versions;
      e.object = object;
      e.filling = true;
      e.write_pending = true;
      // bytes 0: a place job holds no body, and is always taken.
      writer_->push({DiskJob::Kind::place, e.key_hash, e.variant_hash, e.version, object,
                     file.temp_path(), file_bytes},
                    0);
      file.keep();
    }
  }
  if (ec == StoreErrc::tag_index_full) log_tag_problem(object->key, "tag index full");
  return ec;
}

void Store::note_fill_error(std::string_view path, std::error_code ec) {
  bump(counters_.disk_fill_errors);
  const auto held = fill_error_log_.admit(LogLimiter::Clock::now());
  if (!held) return;
  std::string line = "store: writing a fill to " + std::string(path) + ": " + ec.message() +
                     "; not stored (" + std::to_string(read(counters_.disk_fill_errors)) +
                     " disk fill errors so far";
  if (*held > 0) line += ", " + std::to_string(*held) + " not logged since the last line";
  log(line + ")");
}

void Store::note_stream_error(std::string_view key, std::error_code ec) {
  bump(counters_.disk_stream_errors);
  const auto held = stream_error_log_.admit(LogLimiter::Clock::now());
  if (!held) return;
  std::string line = "store: disk hit of " + std::string(key.substr(0, 256)) +
                     " cut short: " + ec.message() + "; the client's connection was closed (" +
                     std::to_string(read(counters_.disk_stream_errors)) +
                     " disk hits cut short so far";
  if (*held > 0) line += ", " + std::to_string(*held) + " not logged since the last line";
  log(line + ")");
}

// Into the memory tier, if the entry is still the disk-only version read.
void Store::promote(const StoredObject& object, std::shared_ptr<const std::string> body,
                    std::uint64_t variant_hash, std::uint32_t version) {
  StoredObject copy{object.key,  object.variant,  object.hash,     object.meta,
                    object.head, std::move(body), object.body_size};
  if (object_bytes(copy) > options_.memory_max_bytes) return;
  auto promoted = std::make_shared<const StoredObject>(std::move(copy));
  {
    Shard& s = shard_of(object.hash);
    std::lock_guard lock(s.mutex);
    const EntryRef ref = s.index.find(object.hash, variant_hash);
    if (ref == kNoEntry) return;
    IndexEntry& e = s.index.at(ref);
    if (e.version != version || e.in(Tier::memory) || !e.in(Tier::disk) || e.write_pending) return;
    e.object = std::move(promoted);
    link_memory(s, ref);
  }
  enforce_budget(Tier::memory);
}

// A damaged file leaves the index, the filter and the disk, if the entry
// still is the settled version that was read (else a newer write owns it).
void Store::report_read_error(const filters::Hash128& hash, std::uint64_t variant_hash,
                              std::uint32_t version, std::error_code ec) {
  const std::string path = path_of(hash, variant_hash);
  if (!is_damage(ec)) {
    bump(counters_.disk_read_errors);
    log("store: reading " + path + ": " + ec.message());
    return;
  }
  {
    Shard& s = shard_of(hash);
    std::lock_guard lock(s.mutex);
    const EntryRef ref = s.index.find(hash, variant_hash);
    if (ref == kNoEntry) return;
    const IndexEntry& e = s.index.at(ref);
    if (e.version != version || !e.in(Tier::disk) || e.write_pending) return;
    drop_file(s, ref);
    if (!e.in(Tier::memory)) erase_entry(s, ref);
  }
  bump(counters_.damaged_files_removed);
  log("store: removed damaged object file " + path + ": " + ec.message());
}

}  // namespace sumcache::daemon
