#pragma once
// Which live node owns a cache key under cluster.miss_policy "owner"
// (docs/peers.md, "Miss policy"): rendezvous, or highest random weight,
// hashing (Thaler and Ravishankar, IEEE/ACM ToN 1998; CARP uses it). Every
// node weighs the key once per live node and the heaviest owns it, so nodes
// that see the same live set agree on the owner without talking, and when a
// node joins or leaves only the keys it wins or held move. Pure.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace sumcache::daemon {

// The seed a node's weights are drawn with: its node id hashed.
std::uint64_t rendezvous_seed(std::string_view node_id);

// The key's weight at the node with this seed: XXH3 of the key under the seed,
// so each node's weights are an independent hash of the key.
std::uint64_t rendezvous_weight(std::string_view key, std::uint64_t seed);

// The index in `nodes` (distinct node ids, in any order, at least one) of the
// key's owner: the highest weight; a tie, which needs equal 64-bit hashes, goes
// to the smaller id so that the order of `nodes` never matters.
std::size_t rendezvous_owner(std::string_view key, std::span<const std::string_view> nodes);

}  // namespace sumcache::daemon
