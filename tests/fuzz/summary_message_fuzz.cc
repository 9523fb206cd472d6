// The summary message decoder (protocol/decode.h) on a message a peer holding the
// cluster secret could send (summary_input.h: the input is signed). Properties: a
// decoded message meets the encoder's preconditions, and encoding it again gives a
// message that decodes to the same content (the coding may differ: the encoder
// picks raw or Rice, whichever is smaller, and each Rice parameter), and that is
// within the size bound of its kind for its own counts (protocol/message_bounds.h).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "protocol/encode.h"
#include "protocol/message_bounds.h"
#include "protocol/wire_ids.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/summary_input.h"

using namespace sumcache::protocol;
namespace fuzz = sumcache::fuzz;

namespace {

bool same_info(const SummaryInfo& a, const SummaryInfo& b) {
  return a.node_id == b.node_id && a.epoch == b.epoch && a.sequence == b.sequence &&
         a.params == b.params && a.hasher == b.hasher && a.entries == b.entries;
}

// Checks the encoder's terms for the decoded message, and returns it encoded
// again with the bound its payload must fit.
std::string encode_again(const SummaryMessage& m, std::uint64_t& payload_bound) {
  const std::uint64_t universe = m.info.params.m;
  switch (m.kind) {
    case MessageKind::full:
      SUMCACHE_FUZZ_CHECK(!check_summary(m.info));
      SUMCACHE_FUZZ_CHECK(m.bits && m.bits->params() == m.info.params);
      payload_bound = full_payload_bound(universe);
      return encode_full(m.info, *m.bits, fuzz::kSecret).value();
    case MessageKind::delta:
      SUMCACHE_FUZZ_CHECK(!check_delta(m.info, m.base_sequence, m.changes));
      payload_bound = delta_payload_bound(universe, m.changes.size());
      return encode_delta(m.info, m.base_sequence, m.changes, fuzz::kSecret).value();
    case MessageKind::fingerprint_full:
      SUMCACHE_FUZZ_CHECK(m.min_version >= kFingerprintVersion);
      SUMCACHE_FUZZ_CHECK(!check_fingerprint_full(m.info, m.fingerprints.added));
      SUMCACHE_FUZZ_CHECK(m.fingerprints.removed_ranks.empty() && !m.bits && m.changes.empty());
      payload_bound = fingerprint_full_payload_bound(universe, m.fingerprints.added.size());
      return encode_fingerprint_full(m.info, m.fingerprints.added, fuzz::kSecret).value();
    case MessageKind::fingerprint_delta: {
      SUMCACHE_FUZZ_CHECK(m.min_version >= kFingerprintVersion);
      SUMCACHE_FUZZ_CHECK(!check_fingerprint_delta(m.info, m.base_sequence, m.fingerprints));
      const auto& d = m.fingerprints;
      const std::uint64_t base = m.info.entries + d.removed_ranks.size() - d.added.size();
      payload_bound =
          fingerprint_delta_payload_bound(universe, base, d.removed_ranks.size() + d.added.size());
      return encode_fingerprint_delta(m.info, m.base_sequence, d, fuzz::kSecret).value();
    }
  }
  SUMCACHE_FUZZ_CHECK(false);  // decode returns no other kind
  return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string message =
      fuzz::signed_message(std::string_view(reinterpret_cast<const char*>(data), size));
  const auto decoded = decode(message, fuzz::secret_for, fuzz::decode_limits());
  if (!decoded) return 0;
  const SummaryMessage& m = *decoded;
  SUMCACHE_FUZZ_CHECK(m.wire_bytes == message.size());
  std::uint64_t payload_bound = 0;
  const std::string again = encode_again(m, payload_bound);
  SUMCACHE_FUZZ_CHECK(!again.empty());
  SUMCACHE_FUZZ_CHECK(again.size() <= message_overhead_bound(m.info.node_id.size()) + payload_bound);
  const auto round = decode(again, fuzz::secret_for, fuzz::decode_limits());
  SUMCACHE_FUZZ_CHECK(round.ok());
  SUMCACHE_FUZZ_CHECK(round->kind == m.kind && same_info(round->info, m.info));
  SUMCACHE_FUZZ_CHECK(round->base_sequence == m.base_sequence);
  SUMCACHE_FUZZ_CHECK(round->bits == m.bits && round->changes == m.changes);
  SUMCACHE_FUZZ_CHECK(round->fingerprints == m.fingerprints);
  return 0;
}
