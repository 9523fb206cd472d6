#pragma once
// SummaryDirectory: the latest summary (BloomFilter bit array) of up to 64
// peers, stored bit-sliced: for each distinct (scheme, m, k), m 64-bit words,
// word i holding bit i of every peer slot with those params. "Which peers
// claim this key?" is then k word loads ANDed together, whatever the number
// of peers. Two probe schemes share it (docs/filters.md, "Squid digests in
// the directory"): sumcache summaries, probed at the hasher's positions, and
// Squid Cache Digests, probed at the four 32-bit words of Squid's MD5 store
// key modulo m. Layout, memory trade-off and concurrency: docs/filters.md.
//
// Threads: claims() from any number of threads, lock-free and allocation-free;
// set/apply/clear serialized by an internal mutex (one updater at a time is
// expected) and never making a reader wait.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string_view>
#include <system_error>
#include <vector>

#include "filters/bit_change.h"
#include "filters/bloom_filter.h"
#include "filters/grace_period.h"

namespace sumcache::filters {

// 2^28 bits per summary: 2 GiB of directory words, room for 1.6 * 10^7 entries
// at 16 bits per entry.
inline constexpr std::uint64_t kMaxDirectoryBits = std::uint64_t{1} << 28;

// How a slot's bits are probed: at the hasher's positions (a sumcache
// summary), or at a Squid store key's (a Squid Cache Digest).
enum class ProbeScheme : std::uint8_t { summary, squid };

// Squid's 16-byte MD5 store key of a URL (protocol/squid_digest.h computes it).
using SquidKey = std::array<std::uint8_t, 16>;

// Squid's four probe positions of `key` in a mask of `bits` bits (> 0): each
// 32-bit word of the key read big-endian, modulo bits (Squid's
// cacheDigestHashKey); bit b is bit b % 8 of mask byte b / 8.
std::array<std::uint32_t, 4> squid_probe_positions(const SquidKey& key, std::uint32_t bits);

class SummaryDirectory {
 public:
  static constexpr unsigned kMaxPeers = 64;

  // Every summary must use `hasher`; a summary with m above max_bits is refused.
  explicit SummaryDirectory(Hasher hasher = {}, std::uint64_t max_bits = kMaxDirectoryBits);
  ~SummaryDirectory();
  SummaryDirectory(const SummaryDirectory&) = delete;
  SummaryDirectory& operator=(const SummaryDirectory&) = delete;

  // Replaces slot's summary. Errors: invalid_slot, parameter_mismatch (hasher), too_large.
  std::error_code set(unsigned slot, const BloomFilter& bits);
  // Replaces slot's summary with a Squid digest's mask (`mask.size() * 8`
  // bits, > 0), probed by the squid scheme from now on.
  // Errors: invalid_slot, too_large (above max_bits, or no bits).
  std::error_code set_squid(unsigned slot, std::span<const std::uint8_t> mask);
  // Applies a delta to slot's summary, all or nothing.
  // Errors: invalid_slot, no_summary, position_out_of_range.
  std::error_code apply(unsigned slot, std::span<const BitChange> changes);
  // The slot claims nothing from now on; no effect on an empty or invalid slot.
  void clear(unsigned slot);

  // Bit s set iff slot s is in `eligible` and its summary has all k bits of the key.
  std::uint64_t claims(const Hash128& h, std::uint64_t eligible = ~std::uint64_t{0}) const;
  std::uint64_t claims(std::string_view key, std::uint64_t eligible = ~std::uint64_t{0}) const {
    return claims(hasher_(key), eligible);
  }
  // Both schemes: summaries at h's positions, Squid digests at squid_key's.
  // A null squid_key skips the Squid digests (the caller computes the MD5
  // key only when probes_squid() says one is held).
  std::uint64_t claims(const Hash128& h, const SquidKey* squid_key,
                       std::uint64_t eligible = ~std::uint64_t{0}) const;
  // Lock-free: whether a Squid digest is held now.
  bool probes_squid() const;

  bool has(unsigned slot) const;
  BloomParams params_of(unsigned slot) const;  // {0, 0} for an empty slot
  ProbeScheme scheme_of(unsigned slot) const;  // summary for an empty slot
  std::size_t memory_bytes() const;            // the bit-sliced words
  const Hasher& hasher() const { return hasher_; }

 private:
  struct Slices;  // one bit-sliced array, owned by the writer side
  // What readers see of one array. Views are immutable once published.
  struct Entry {
    std::uint64_t slots = 0;
    BloomParams params;
    ProbeScheme scheme = ProbeScheme::summary;
    const std::atomic<std::uint64_t>* words = nullptr;
  };
  struct View {
    unsigned count = 0;
    bool has_squid = false;
    std::array<Entry, kMaxPeers> entries;  // at most one array per slot
  };

  template <class Bit>
  void write_column(Slices& target, unsigned slot, Bit bit_of);
  // Moves `slot` into `target` (its column written already) and publishes.
  void place(unsigned slot, Slices* target);
  void publish();
  Slices* find_or_add(ProbeScheme scheme, const BloomParams& params);

  Hasher hasher_;
  std::uint64_t max_bits_;

  // Reclamation: readers load published_ inside a GracePeriod guard. A writer
  // fills the view not published, publishes it, waits out the grace period,
  // and only then frees arrays left without slots; after that wait no reader
  // holds the old view, so it is the next scratch. Chosen over a shared_ptr
  // swapped atomically because there the last reader to drop an old view
  // would free a multi-megabyte array on a worker thread, and every lookup
  // would write the same reference count.
  mutable GracePeriod grace_;
  std::array<View, 2> views_;
  std::atomic<const View*> published_;

  mutable std::mutex writer_;  // guards the members below
  std::vector<std::unique_ptr<Slices>> arrays_;
  std::array<Slices*, kMaxPeers> slot_arrays_{};
};

}  // namespace sumcache::filters
