#pragma once
// A summary message as the encoder takes it and the decoder returns it
// (layout: docs/protocol.md).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "filters/bit_change.h"
#include "filters/bloom_filter.h"
#include "filters/filter_params.h"
#include "filters/fingerprint_table.h"
#include "filters/hashing.h"
#include "protocol/wire_ids.h"

namespace sumcache::protocol {

struct SummaryInfo {            // who sent it, and of which filter
  std::string node_id;          // 1..64 bytes of [A-Za-z0-9._-]
  std::uint64_t epoch = 0;      // the sender's start; a new epoch means: forget the old state
  std::uint64_t sequence = 0;   // the state this message brings the receiver to
  filters::BloomParams params;  // m, k
  filters::Hasher hasher;       // hash id and seed
  std::uint64_t entries = 0;    // documents the sender's filter counts
};

struct SummaryMessage {
  MessageKind kind = MessageKind::full;
  std::uint16_t version = kBloomVersion, min_version = kMinVersion;
  Compression compression = Compression::raw;
  SummaryInfo info;
  std::uint64_t base_sequence = 0;           // delta: the state it applies on
  std::optional<filters::BloomFilter> bits;  // full
  std::vector<filters::BitChange> changes;   // delta, strictly ascending positions < m
  // Fingerprint kinds (params.m is the universe, params.k is 1):
  // fingerprint_full: `added` is the set, ascending, repeats kept, each < m;
  // fingerprint_delta: ranks removed from the base set, fingerprints added.
  filters::FingerprintDelta fingerprints;
  std::size_t wire_bytes = 0;                // decode: size of the message read
};

}  // namespace sumcache::protocol
