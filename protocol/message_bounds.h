#pragma once
// The most bytes a summary message from a conforming encoder can take, so a
// receiver can refuse a larger one before reading it (docs/protocol.md,
// "Size bounds"). Derived from the layout and from encode.cc's choices.

#include <cstddef>
#include <cstdint>

namespace sumcache::protocol {

// A full payload: the encoder writes Rice-coded gaps only when they are
// smaller than the raw array, so at most ceil(m/8) bytes.
std::uint64_t full_payload_bound(std::uint64_t m);
// A delta payload of at most min(m, max_changes) changes. With c changes and
// the encoder's parameter r = floor(log2(mean gap * ln 2)) (or a cheaper
// neighbour), a change costs r + 2 bits plus its gap >> r, so the payload is
// under c * (log2(m / c) + 4.9) bits; c * (ceil(log2(ceil(m / c))) + 6) bounds
// that and grows with c, so it is taken at the largest c.
std::uint64_t delta_payload_bound(std::uint64_t m, std::uint64_t max_changes);

// Bits of a Rice-coded list (fingerprints or ranks) of x codes with values in
// [0, w), x > 0: each code costs under max(0, log2(w / x)) + 3.9 bits with the
// encoder's parameter, so x * (ceil(log2(ceil(w / x))) + 4) bounds it, and
// bounds every shorter list of the same w too.
std::uint64_t fingerprint_list_bits(std::uint64_t x, std::uint64_t w);
// A fingerprint_full payload of at most max_fingerprints fingerprints below `universe`.
std::uint64_t fingerprint_full_payload_bound(std::uint64_t universe,
                                             std::uint64_t max_fingerprints);
// A fingerprint_delta payload: the prefix, at most min(max_changes,
// max_fingerprints) ranks in a base of at most max_fingerprints, and at most
// max_changes fingerprints below `universe`, each list counted at its largest.
std::uint64_t fingerprint_delta_payload_bound(std::uint64_t universe,
                                              std::uint64_t max_fingerprints,
                                              std::uint64_t max_changes);

// Header (at most kMaxHeaderBytes, for later versions' fields), node id, tag.
std::uint64_t message_overhead_bound(std::size_t node_id_bytes);
// The largest full or delta message of a node whose m is at most max_m.
std::uint64_t message_bound(std::uint64_t max_m, std::uint64_t max_changes,
                            std::size_t node_id_bytes);
// The largest fingerprint_full or fingerprint_delta message of a node whose
// universe is at most max_universe, to a receiver that holds at most
// max_fingerprints of a peer's fingerprints (DecodeLimits::max_fingerprints).
// A receiver that takes both families bounds a body by the larger of the two.
std::uint64_t fingerprint_message_bound(std::uint64_t max_universe, std::uint64_t max_fingerprints,
                                        std::uint64_t max_changes, std::size_t node_id_bytes);

}  // namespace sumcache::protocol
