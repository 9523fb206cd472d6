// A peer's summaries as the receiver holds them: a sequence of messages, each
// decoded (signed first, summary_input.h), applied to the PeerSummary
// (protocol/peer_summary.h) and, when applied, to the summary directory the way
// SummaryExchange::apply does (daemon/peer/summary_exchange.cc). The input is the
// messages one after another, each without its tag; each starts with the magic.
// Fingerprint messages go through admit() and commit(), with a sorted multiset
// standing in for the receiver's fingerprint directory.
//
// Properties: a message that is refused leaves the state exactly as it was; an
// applied one leaves the state at the message's sequence (or older fulls and
// replays ignored), and the directory then claims exactly what the state holds.
// admit() changes nothing and agrees with apply(); an admitted fingerprint
// delta's ranks lie within the set held, and the set then has the size the
// state records.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string_view>
#include <vector>

#include "filters/summary_directory.h"
#include "protocol/peer_summary.h"
#include "protocol/protocol_error.h"
#include "protocol/wire_header.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/summary_input.h"

using namespace sumcache::protocol;
namespace filters = sumcache::filters;
namespace fuzz = sumcache::fuzz;

namespace {

constexpr std::size_t kMaxMessages = 16;
constexpr std::string_view kMagicBytes("SCSM", 4);  // kMagic, little-endian

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

struct Snapshot {
  bool has_state, fingerprints;
  std::uint64_t epoch, sequence, entries;
  std::optional<filters::BloomFilter> bits;
  bool operator==(const Snapshot&) const = default;
};

Snapshot snapshot(const PeerSummary& s) {
  const bool bloom = s.has_state() && !s.holds_fingerprints();
  std::optional<filters::BloomFilter> bits;
  if (bloom) bits = s.bits();
  return {s.has_state(), s.holds_fingerprints(), s.epoch(), s.sequence(), s.entries(), bits};
}

// The receiver's fingerprint set: base without the removed ranks, with the
// added merged in. Requires every rank below base.size().
std::vector<std::uint64_t> apply_ranks(const std::vector<std::uint64_t>& base,
                                       const filters::FingerprintDelta& delta) {
  std::vector<std::uint64_t> kept;
  std::size_t r = 0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    if (r < delta.removed_ranks.size() && delta.removed_ranks[r] == i) {
      ++r;
    } else {
      kept.push_back(base[i]);
    }
  }
  SUMCACHE_FUZZ_CHECK(r == delta.removed_ranks.size());
  std::vector<std::uint64_t> out;
  std::merge(kept.begin(), kept.end(), delta.added.begin(), delta.added.end(),
             std::back_inserter(out));
  return out;
}

// The directory claims a key iff the state's filter has all its bits; probed
// with a few keys, as a lookup would.
void check_directory(const filters::SummaryDirectory& directory, const PeerSummary& summary) {
  if (!summary.has_state() || summary.holds_fingerprints() ||
      summary.bits().hasher() != directory.hasher()) {
    return;
  }
  for (const char* key : {"http://golden.example/1", "http://golden.example/7", "http://x/"}) {
    const bool claimed = (directory.claims(key) & 1U) != 0;
    SUMCACHE_FUZZ_CHECK(claimed == summary.bits().contains(key));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  PeerSummary summary;
  filters::SummaryDirectory directory({}, fuzz::decode_limits().max_m);
  bool directory_valid = true;
  std::vector<std::uint64_t> fingerprints;  // the fingerprint directory's slot
  for (const std::string_view part : split_messages(input)) {
    const auto message =
        decode(fuzz::signed_message(part), fuzz::secret_for, fuzz::decode_limits());
    if (!message) continue;
    const Snapshot before = snapshot(summary);
    const auto verdict = summary.admit(*message);
    SUMCACHE_FUZZ_CHECK(snapshot(summary) == before);
    // The held epoch never goes back (epoch_rules_fuzz drives that rule harder).
    if (before.has_state && message->info.epoch < before.epoch) {
      SUMCACHE_FUZZ_CHECK(!verdict && verdict.error() == ProtocolErrc::stale_epoch);
    }
    if (is_fingerprint_kind(message->kind)) {
      PeerSummary twin = summary;  // apply() is admit() then commit()
      SUMCACHE_FUZZ_CHECK(twin.apply(*message) == verdict.error());
      if (!verdict || !*verdict) {
        SUMCACHE_FUZZ_CHECK(snapshot(twin) == before);
        continue;
      }
      fingerprints = message->kind == MessageKind::fingerprint_full
                         ? message->fingerprints.added
                         : apply_ranks(fingerprints, message->fingerprints);
      summary.commit(*message);
      SUMCACHE_FUZZ_CHECK(snapshot(twin) == snapshot(summary));
      SUMCACHE_FUZZ_CHECK(summary.holds_fingerprints());
      SUMCACHE_FUZZ_CHECK(summary.sequence() == message->info.sequence);
      SUMCACHE_FUZZ_CHECK(summary.entries() == fingerprints.size());
      continue;
    }
    const auto ec = summary.apply(*message);
    SUMCACHE_FUZZ_CHECK(ec == verdict.error());
    if (ec) {
      SUMCACHE_FUZZ_CHECK(snapshot(summary) == before);
      continue;
    }
    SUMCACHE_FUZZ_CHECK(summary.has_state());
    // Only what was applied: an ignored Bloom full may leave a fingerprint state.
    if (*verdict) {
      SUMCACHE_FUZZ_CHECK(!summary.holds_fingerprints());
      const auto set_ec = message->kind == MessageKind::full ? directory.set(0, summary.bits())
                                                             : directory.apply(0, message->changes);
      directory_valid = !set_ec;
      if (set_ec) directory.clear(0);
    }
    if (directory_valid) check_directory(directory, summary);
  }
  return 0;
}
