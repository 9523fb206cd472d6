// The receiver's epoch rule (docs/protocol.md, "Receiver state"): the held
// epoch of a sender never goes back. The input is a sequence of 5-byte
// records, each a message from one sender built by hand (no decoding: the
// rule is what is under test, not the decoder):
//   byte 0: the kind (low 3 bits: invalidation batch, fingerprint full,
//           fingerprint delta, Bloom full, Bloom delta) and the missed flag (bit 3)
//   byte 1: the epoch, one of 8 close values, so that equal, lower and higher
//           ones all come up
//   byte 2: the sequence (a batch's first_seq, a summary's sequence)
//   byte 3: the count (a batch's entries), or a delta's base
//   byte 4: the bits or fingerprints the message carries
// Batches go to an InvalidationSequence, summaries to a PeerSummary through
// admit() then commit() (apply() for the Bloom kinds).
//
// Properties, over every prefix of the sequence: the held epoch never
// decreases, and is the highest epoch of any message taken; a message of a
// lower epoch is refused (stale_epoch) and changes nothing; a batch that
// applies nothing (duplicate, gap, stale_epoch) and a summary that is refused
// or ignored leave the state exactly as it was; admit() changes nothing.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "filters/bloom_filter.h"
#include "protocol/invalidation_sequence.h"
#include "protocol/peer_summary.h"
#include "protocol/protocol_error.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache::protocol;
namespace filters = sumcache::filters;

namespace {

constexpr std::size_t kRecordBytes = 5;
constexpr std::size_t kMaxRecords = 256;
constexpr std::uint64_t kEpochBase = 1'800'000'000ULL << 20;
constexpr std::uint64_t kUniverse = 64;  // fingerprint summaries' universe
constexpr std::uint64_t kBloomBits = 16;

struct Record {
  unsigned kind;
  bool missed;
  std::uint64_t epoch;
  std::uint64_t sequence;
  std::uint64_t count;
  std::uint8_t bits;
};

Record read_record(const std::uint8_t* p) {
  return {static_cast<unsigned>(p[0] & 7U) % 5U,
          (p[0] & 8U) != 0,
          kEpochBase + (p[1] & 7U),
          p[2],
          p[3],
          p[4]};
}

InvalidationBatch batch_of(const Record& r) {
  InvalidationBatch b;
  b.node_id = "node-a";
  b.epoch = r.epoch;
  b.first_seq = 1 + r.sequence;
  if (r.missed) b.missed_until_ms = 5000;
  for (std::uint64_t i = 0; i < r.count % 5; ++i) {
    b.entries.push_back({InvalidationKind::url, 1000 + i, "http://x/" + std::to_string(i)});
  }
  return b;
}

SummaryInfo info_of(const Record& r, filters::BloomParams params, std::uint64_t entries) {
  return {"node-a", r.epoch, 1 + (r.sequence & 15U), params, {}, entries};
}

// Well formed by construction, so that the epoch and sequence rules decide.
SummaryMessage summary_of(const Record& r) {
  SummaryMessage m;
  if (r.kind == 1 || r.kind == 2) {
    m.kind = r.kind == 1 ? MessageKind::fingerprint_full : MessageKind::fingerprint_delta;
    m.version = m.min_version = kFingerprintVersion;
    m.compression = Compression::rice_gaps;
    for (unsigned i = 0; i < 8; ++i) {
      if ((r.bits >> i) & 1U) m.fingerprints.added.push_back(i * 7);
    }
    // A delta that adds its fingerprints to an empty base (sequence_gap on any
    // other size held, which is fine: that rule is not this target's).
    m.info = info_of(r, {kUniverse, 1}, m.fingerprints.added.size());
    m.base_sequence = 1 + (r.count & 15U);
    return m;
  }
  auto bits = filters::BloomFilter::create({kBloomBits, 1}).value();
  for (unsigned i = 0; i < 8; ++i) bits.set_bit(i, ((r.bits >> i) & 1U) != 0);
  m.info = info_of(r, bits.params(), 1);
  if (r.kind == 3) {
    m.kind = MessageKind::full;
    m.bits = std::move(bits);
  } else {
    m.kind = MessageKind::delta;
    m.compression = Compression::rice_gaps;
    m.base_sequence = 1 + (r.count & 15U);
    m.changes = {{r.bits & 15U, (r.bits & 16U) != 0}};
  }
  return m;
}

struct Snapshot {
  bool has_state, fingerprints;
  std::uint64_t epoch, sequence, entries;
  std::optional<filters::BloomFilter> bits;
  bool operator==(const Snapshot&) const = default;
};

Snapshot snapshot(const PeerSummary& s) {
  std::optional<filters::BloomFilter> bits;
  if (s.has_state() && !s.holds_fingerprints()) bits = s.bits();
  return {s.has_state(), s.holds_fingerprints(), s.epoch(), s.sequence(), s.entries(), bits};
}

void feed_batch(InvalidationSequence& seq, std::uint64_t& highest, const Record& r) {
  const InvalidationBatch batch = batch_of(r);
  const bool had = seq.has_state();
  const std::uint64_t epoch = seq.epoch(), through = seq.applied_through();
  const SequenceDecision d = seq.accept(batch);
  SUMCACHE_FUZZ_CHECK(d.skip <= batch.entries.size());
  SUMCACHE_FUZZ_CHECK(!had || seq.epoch() >= epoch);
  if (had && !batch.entries.empty() && batch.epoch < epoch) {
    SUMCACHE_FUZZ_CHECK(d.verdict == SequenceVerdict::stale_epoch);
  }
  if (d.skip == batch.entries.size()) {  // nothing applied: nothing changes
    SUMCACHE_FUZZ_CHECK(seq.has_state() == had && seq.epoch() == epoch &&
                        seq.applied_through() == through);
    return;
  }
  highest = std::max(highest, batch.epoch);
  SUMCACHE_FUZZ_CHECK(seq.epoch() == highest);
  SUMCACHE_FUZZ_CHECK(seq.epoch() == batch.epoch && d.acked_through == seq.applied_through());
}

void feed_summary(PeerSummary& summary, std::uint64_t& highest, const Record& r) {
  const SummaryMessage m = summary_of(r);
  const Snapshot before = snapshot(summary);
  const auto verdict = summary.admit(m);
  SUMCACHE_FUZZ_CHECK(snapshot(summary) == before);
  if (before.has_state && m.info.epoch < before.epoch) {
    SUMCACHE_FUZZ_CHECK(!verdict && verdict.error() == ProtocolErrc::stale_epoch);
  }
  if (!verdict || !*verdict) {
    PeerSummary twin = summary;
    (void)twin.apply(m);
    SUMCACHE_FUZZ_CHECK(snapshot(twin) == before);
    return;
  }
  summary.commit(m);
  highest = std::max(highest, m.info.epoch);
  SUMCACHE_FUZZ_CHECK(summary.epoch() == highest && summary.epoch() == m.info.epoch);
  SUMCACHE_FUZZ_CHECK(!before.has_state || summary.epoch() >= before.epoch);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  InvalidationSequence sequence;
  PeerSummary summary;
  std::uint64_t highest_batch = 0, highest_summary = 0;
  const std::size_t records = std::min(size / kRecordBytes, kMaxRecords);
  for (std::size_t i = 0; i < records; ++i) {
    const Record r = read_record(data + i * kRecordBytes);
    if (r.kind == 0) {
      feed_batch(sequence, highest_batch, r);
    } else {
      feed_summary(summary, highest_summary, r);
    }
  }
  return 0;
}
