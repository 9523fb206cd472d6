#pragma once
// Entity tags (RFC 9110 §8.8.3): parsing and the two comparison functions.

#include <optional>
#include <string_view>
#include <vector>

namespace sumcache::daemon {

struct EntityTag {
  bool weak = false;
  std::string_view opaque;  // between the quotes; views the parsed text
};

// entity-tag = [ "W/" ] DQUOTE *etagc DQUOTE, with surrounding OWS.
std::optional<EntityTag> parse_entity_tag(std::string_view text);

// §8.8.3.2: strong comparison needs both strong and equal; weak comparison
// needs only equal opaque tags.
bool strong_match(const EntityTag& a, const EntityTag& b);
bool weak_match(const EntityTag& a, const EntityTag& b);

// If-None-Match / If-Match: "*" or a list of entity tags (§13.1.1, §13.1.2).
struct EntityTagList {
  bool any = false;  // "*"
  std::vector<EntityTag> tags;
};
// nullopt when any member is not an entity tag: the field is then invalid.
std::optional<EntityTagList> parse_entity_tag_list(std::string_view text);

}  // namespace sumcache::daemon
