// Invalidation messages (protocol/invalidation_message.h) as a peer holding the
// cluster secret could send them, fed on to the state that takes them. The
// input is up to 16 messages, each starting with the magic "SCIV" and without
// its tag (summary_input.h signs it: random bytes never carry a valid HMAC).
// Each is decoded as a batch and as an ack; a batch goes to an
// InvalidationSequence and its entries into an InvalidationOutbox (small
// window, so that it evicts), an ack to that outbox.
//
// Properties: a decoded message meets the encoder's rules and encodes back to
// the same content (to the same bytes when its header is v1's); a
// batch the sequence refuses or finds a duplicate leaves it as it was, an
// applied one leaves it at the batch's last sequence with the ack saying so;
// a refused ack changes nothing; every batch the outbox yields encodes and
// decodes back to itself.

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "protocol/invalidation_header.h"
#include "protocol/invalidation_message.h"
#include "protocol/invalidation_outbox.h"
#include "protocol/invalidation_sequence.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/summary_input.h"

using namespace sumcache::protocol;
namespace fuzz = sumcache::fuzz;

namespace {

constexpr std::size_t kMaxMessages = 16;
constexpr std::string_view kMagicBytes("SCIV", 4);  // kInvalidationMagic, little-endian
constexpr std::uint64_t kOutboxEpoch = 5;           // the epoch the seeds' acks name

std::vector<std::string_view> split_messages(std::string_view input) {
  std::vector<std::string_view> out;
  while (!input.empty() && out.size() < kMaxMessages) {
    const std::size_t next = input.find(kMagicBytes, 1);
    out.push_back(input.substr(0, next));
    if (next == std::string_view::npos) break;
    input.remove_prefix(next);
  }
  return out;
}

// What this encoder writes: a later writer's version or longer header decodes
// to the same content but is not written back byte for byte.
bool v1_header(std::string_view message) {
  if (message.size() < kInvalidationHeaderBytes) return false;
  const InvalidationHeader h = read_invalidation_header(message);
  return h.version == kInvalidationVersion && h.min_version == kInvalidationMinVersion &&
         h.header_bytes == kInvalidationHeaderBytes;
}

void check_batch(const std::string& message, const InvalidationBatch& batch) {
  SUMCACHE_FUZZ_CHECK(!check_invalidations(batch));
  const std::string again = encode_invalidations(batch, fuzz::kSecret).value();
  SUMCACHE_FUZZ_CHECK(!again.empty());
  if (v1_header(message)) SUMCACHE_FUZZ_CHECK(again == message);
  const auto round = decode_invalidations(again, fuzz::secret_for);
  SUMCACHE_FUZZ_CHECK(round.ok() && *round == batch);
}

void check_ack(const std::string& message, const InvalidationAck& ack) {
  SUMCACHE_FUZZ_CHECK(!check_invalidation_ack(ack));
  const std::string again = encode_invalidation_ack(ack, fuzz::kSecret).value();
  SUMCACHE_FUZZ_CHECK(!again.empty());
  if (v1_header(message)) SUMCACHE_FUZZ_CHECK(again == message);
  const auto round = decode_invalidation_ack(again, fuzz::secret_for);
  SUMCACHE_FUZZ_CHECK(round.ok() && *round == ack);
}

void check_sequence(InvalidationSequence& sequence, const InvalidationBatch& batch) {
  const bool had_state = sequence.has_state();
  const std::uint64_t epoch = sequence.epoch(), applied = sequence.applied_through();
  const SequenceDecision d = sequence.accept(batch);
  SUMCACHE_FUZZ_CHECK(d.skip <= batch.entries.size());
  SUMCACHE_FUZZ_CHECK(d.acked_through == sequence.applied_through());
  // The held epoch never decreases.
  SUMCACHE_FUZZ_CHECK(!had_state || sequence.epoch() >= epoch);
  switch (d.verdict) {
    case SequenceVerdict::stale_epoch:
      SUMCACHE_FUZZ_CHECK(batch.epoch < epoch);
      [[fallthrough]];
    case SequenceVerdict::duplicate:
    case SequenceVerdict::gap:
      SUMCACHE_FUZZ_CHECK(had_state && d.skip == batch.entries.size());
      SUMCACHE_FUZZ_CHECK(sequence.epoch() == epoch && sequence.applied_through() == applied);
      return;
    case SequenceVerdict::apply:
    case SequenceVerdict::apply_suffix:
      SUMCACHE_FUZZ_CHECK(!had_state ||
                          (epoch == batch.epoch && batch.first_seq + d.skip == applied + 1));
      SUMCACHE_FUZZ_CHECK((d.skip == 0) == (d.verdict == SequenceVerdict::apply));
      break;
    case SequenceVerdict::new_epoch:
      SUMCACHE_FUZZ_CHECK(had_state && epoch < batch.epoch && d.skip == 0);
      break;
    case SequenceVerdict::missed:
      SUMCACHE_FUZZ_CHECK(batch.missed_until_ms && d.skip == 0);
      break;
  }
  SUMCACHE_FUZZ_CHECK(sequence.has_state() && sequence.epoch() == batch.epoch);
  SUMCACHE_FUZZ_CHECK(sequence.applied_through() == batch.last_seq());
}

void check_outbox_ack(InvalidationOutbox& outbox, const InvalidationAck& ack) {
  const auto before = outbox.acked_through(ack.node_id);
  const AckOutcome outcome = outbox.ack(ack);
  if (outcome != AckOutcome::accepted) {
    SUMCACHE_FUZZ_CHECK(outbox.acked_through(ack.node_id) == before);
    return;
  }
  SUMCACHE_FUZZ_CHECK(outbox.acked_through(ack.node_id) == ack.acked_through);
  SUMCACHE_FUZZ_CHECK(outbox.pending(ack.node_id) == outbox.last_sequence() - ack.acked_through);
}

void check_outbox_batches(const InvalidationOutbox& outbox) {
  for (const char* peer : {"node-b", "node-c"}) {
    const auto batch = outbox.batch_for(peer);
    SUMCACHE_FUZZ_CHECK(batch.has_value() == (outbox.pending(peer) > 0));
    if (!batch) continue;
    SUMCACHE_FUZZ_CHECK(batch->missed_until_ms.has_value() == outbox.missed(peer));
    SUMCACHE_FUZZ_CHECK(
        batch->first_seq ==
        (outbox.missed(peer) ? outbox.oldest_retained() : *outbox.acked_through(peer) + 1));
    SUMCACHE_FUZZ_CHECK(batch->last_seq() <= outbox.last_sequence());
    const std::string wire = encode_invalidations(*batch, fuzz::kSecret).value();
    SUMCACHE_FUZZ_CHECK(!wire.empty());
    const auto round = decode_invalidations(wire, fuzz::secret_for);
    SUMCACHE_FUZZ_CHECK(round.ok() && *round == *batch);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  InvalidationSequence sequence;
  InvalidationOutbox outbox("node-a", kOutboxEpoch, {.max_entries = 8, .max_bytes = 16 << 10});
  outbox.add_peer("node-b", 0);
  outbox.add_peer("node-c", 0);
  for (const std::string_view part : split_messages(input)) {
    const std::string message = fuzz::signed_message(part);
    if (const auto batch = decode_invalidations(message, fuzz::secret_for)) {
      check_batch(message, *batch);
      check_sequence(sequence, *batch);
      for (const auto& entry : batch->entries) SUMCACHE_FUZZ_CHECK(outbox.add(entry).ok());
    } else if (const auto ack = decode_invalidation_ack(message, fuzz::secret_for)) {
      check_ack(message, *ack);
      check_outbox_ack(outbox, *ack);
    }
    check_outbox_batches(outbox);
  }
  return 0;
}
