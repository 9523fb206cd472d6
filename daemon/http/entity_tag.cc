#include "daemon/http/entity_tag.h"

#include "daemon/http/field_value.h"

namespace sumcache::daemon {
namespace {

// etagc = %x21 / %x23-7E / obs-text: visible octets but DQUOTE.
bool is_etagc(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u == 0x21 || (u >= 0x23 && u != 0x7F);
}

// Reads one entity-tag at the start of `text`, advancing it past the tag.
std::optional<EntityTag> take_entity_tag(std::string_view& text) {
  EntityTag tag;
  if (text.starts_with("W/")) {
    tag.weak = true;
    text.remove_prefix(2);
  }
  if (text.empty() || text.front() != '"') return std::nullopt;
  std::size_t end = 1;
  while (end < text.size() && is_etagc(text[end])) ++end;
  if (end >= text.size() || text[end] != '"') return std::nullopt;
  tag.opaque = text.substr(1, end - 1);
  text.remove_prefix(end + 1);
  return tag;
}

}  // namespace

std::optional<EntityTag> parse_entity_tag(std::string_view text) {
  text = trim_ows(text);
  auto tag = take_entity_tag(text);
  if (!tag || !text.empty()) return std::nullopt;
  return tag;
}

bool strong_match(const EntityTag& a, const EntityTag& b) {
  return !a.weak && !b.weak && a.opaque == b.opaque;
}

bool weak_match(const EntityTag& a, const EntityTag& b) { return a.opaque == b.opaque; }

std::optional<EntityTagList> parse_entity_tag_list(std::string_view text) {
  EntityTagList list;
  text = trim_ows(text);
  if (text == "*") {
    list.any = true;
    return list;
  }
  // 1#entity-tag: tags separated by OWS "," OWS, empty members allowed.
  while (true) {
    while (!text.empty() && (text.front() == ',' || text.front() == ' ' || text.front() == '\t')) {
      text.remove_prefix(1);
    }
    if (text.empty()) break;
    auto tag = take_entity_tag(text);
    if (!tag) return std::nullopt;
    list.tags.push_back(*tag);
    text = trim_ows(text);
    if (!text.empty() && text.front() != ',') return std::nullopt;
  }
  if (list.tags.empty()) return std::nullopt;
  return list;
}

}  // namespace sumcache::daemon
