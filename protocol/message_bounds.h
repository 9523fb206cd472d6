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
// Header (at most kMaxHeaderBytes, for later versions' fields), node id, tag.
std::uint64_t message_overhead_bound(std::size_t node_id_bytes);
// The largest full or delta message of a node whose m is at most max_m.
std::uint64_t message_bound(std::uint64_t max_m, std::uint64_t max_changes,
                            std::size_t node_id_bytes);

}  // namespace sumcache::protocol
