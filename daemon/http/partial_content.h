#pragma once
// Stored partial responses (RFC 9111 §3.3, §3.4; RFC 9110 §15.3.7.3): the
// byte ranges a cache holds of one representation, how a new range joins
// them, and when two partial responses may be combined at all.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "daemon/http/header_list.h"
#include "daemon/http/range.h"

namespace sumcache::daemon {

// Bytes [first, first + bytes.size()) of a representation.
struct Piece {
  std::uint64_t first = 0;
  std::string bytes;  // never empty
  std::uint64_t last() const { return first + bytes.size() - 1; }
};

// Sorted by first, none overlapping or adjacent: one piece per continuous
// run of stored bytes, so a range is covered iff one piece holds all of it.
using Pieces = std::vector<Piece>;

// §15.3.7.3: the content of a combined response is the union of the ranges;
// where ranges overlap the newer bytes are kept (they share a strong
// validator, so they are the same bytes unless the origin broke §8.8.1).
void add_piece(Pieces& pieces, Piece piece);

// The piece that holds every byte of `range`, or null.
const Piece* covering_piece(const Pieces& pieces, ByteRange range);

// The smallest range that holds every byte of `wanted` not in `pieces`:
// what to ask upstream for; nullopt when `wanted` is covered.
std::optional<ByteRange> missing_span(const Pieces& pieces, ByteRange wanted);

// §15.3.7.3: the ranges cover the whole representation of `complete` bytes.
bool covers_all(const Pieces& pieces, std::uint64_t complete);

std::uint64_t stored_bytes(const Pieces& pieces);

// The strong validator partial responses must share to be combined (§3.4,
// RFC 9110 §15.3.7.3): a strong ETag. nullopt: none, or a weak one. A
// Last-Modified can be strong too (§8.8.2.2) but only against a Date a
// minute later; we do not combine on it.
std::optional<std::string> strong_validator(const HeaderList& response);

// May `newer` (a 206 or its fields) be combined with a stored partial
// response with fields `stored`: both carry the same strong validator.
bool combinable(const HeaderList& stored, const HeaderList& newer);

// §3.4: "use the header fields provided in the new response, aside from
// Content-Range, to replace all instances of the corresponding header fields
// in the stored response".
HeaderList combined_fields(HeaderList stored, const HeaderList& newer);

}  // namespace sumcache::daemon
