#pragma once
// The Store's private parts shared by its .cc files (store.cc: the API;
// store_tiers.cc: placement and eviction; store_disk.cc: files).

#include <cstdint>
#include <mutex>

#include "daemon/store/index_shard.h"
#include "daemon/store/key_names.h"
#include "daemon/store/object_file_io.h"
#include "daemon/store/store.h"
#include "daemon/store/tag_index.h"

namespace sumcache::daemon {

// Cache-line aligned so that neighbouring shards' mutexes do not share a line.
struct alignas(64) Store::Shard {
  std::mutex mutex;
  IndexShard index;
  TagIndex tags;               // of this shard's entries
  KeyNames names;              // of this shard's keys
  std::uint32_t versions = 0;  // source of IndexEntry::version, unique within the shard
  std::uint64_t memory_hits = 0;
  std::uint64_t misses = 0;
};

// An object's file, opened and matched against the object it was asked for.
struct Store::FileRead {
  OpenObjectFile file;
  std::uint64_t variant_hash = 0;
  std::uint32_t version = 0;
  bool settled = false;  // the entry was in the disk tier with no write queued
};

}  // namespace sumcache::daemon
