#include "daemon/http/partial_content.h"

#include <algorithm>

#include "daemon/http/entity_tag.h"
#include "daemon/http/field_value.h"

namespace sumcache::daemon {

void add_piece(Pieces& pieces, Piece piece) {
  if (piece.bytes.empty()) return;
  // Every stored piece that overlaps or touches the new one merges into it.
  auto begin =
      std::ranges::find_if(pieces, [&](const Piece& p) { return p.last() + 1 >= piece.first; });
  auto end = begin;
  while (end != pieces.end() && end->first <= piece.last() + 1) ++end;
  if (begin != end) {
    const std::uint64_t first = std::min(begin->first, piece.first);
    const std::uint64_t last = std::max(std::prev(end)->last(), piece.last());
    std::string merged(static_cast<std::size_t>(last - first + 1), '\0');
    for (auto it = begin; it != end; ++it) {
      std::ranges::copy(it->bytes, merged.begin() + static_cast<std::ptrdiff_t>(it->first - first));
    }
    std::ranges::copy(piece.bytes,
                      merged.begin() + static_cast<std::ptrdiff_t>(piece.first - first));
    piece = Piece{first, std::move(merged)};
  }
  pieces.insert(pieces.erase(begin, end), std::move(piece));
}

const Piece* covering_piece(const Pieces& pieces, ByteRange range) {
  for (const Piece& p : pieces) {
    if (p.first <= range.first && range.last <= p.last()) return &p;
  }
  return nullptr;
}

std::optional<ByteRange> missing_span(const Pieces& pieces, ByteRange wanted) {
  // The first byte of `wanted` that no piece holds: pieces are sorted and
  // never adjacent, so at most one of them starts the run from `first`.
  std::uint64_t first = wanted.first;
  for (const Piece& p : pieces) {
    if (p.first <= first && first <= p.last()) first = p.last() + 1;
  }
  if (first > wanted.last) return std::nullopt;
  // And the last one, from the other end.
  std::uint64_t last = wanted.last;
  for (auto it = pieces.rbegin(); it != pieces.rend(); ++it) {
    if (it->first <= last && last <= it->last()) last = it->first - 1;  // it->first > first
  }
  return ByteRange{first, last};
}

bool covers_all(const Pieces& pieces, std::uint64_t complete) {
  return complete > 0 && covering_piece(pieces, {0, complete - 1}) != nullptr;
}

std::uint64_t stored_bytes(const Pieces& pieces) {
  std::uint64_t total = 0;
  for (const Piece& p : pieces) total += p.bytes.size();
  return total;
}

std::optional<std::string> strong_validator(const HeaderList& response) {
  if (count_fields(response, "ETag") != 1) return std::nullopt;
  const std::string_view value = *first_value(response, "ETag");
  const auto tag = parse_entity_tag(value);
  if (!tag || tag->weak) return std::nullopt;
  return std::string(trim_ows(value));
}

bool combinable(const HeaderList& stored, const HeaderList& newer) {
  const auto a = strong_validator(stored);
  const auto b = strong_validator(newer);
  return a && b && *a == *b;
}

HeaderList combined_fields(HeaderList stored, const HeaderList& newer) {
  for (const auto& field : newer) {
    if (iequals(field.name, "Content-Range")) continue;
    remove_field(stored, field.name);
  }
  for (const auto& field : newer) {
    if (!iequals(field.name, "Content-Range")) stored.push_back(field);
  }
  return stored;
}

}  // namespace sumcache::daemon
