#pragma once
// The tags (surrogate keys) of a stored response: the space-separated values
// of its tag field ("Surrogate-Key", as Fastly and Varnish xkey use), read
// from the stored head so that a restart re-derives them from the disk tier.
// Pure; bounds from StoreOptions (docs/store.md, "Tag index").

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace sumcache::daemon {

struct TagRules {
  std::string field;                 // the field's name, matched case-insensitively; "": no tags
  std::size_t max_tags = 64;         // per object
  std::size_t max_tag_bytes = 1024;  // longer tags can be neither indexed nor purged
};

struct ObjectTags {
  std::vector<std::string> tags;  // sorted, each once
  std::size_t too_long = 0;       // tags over max_tag_bytes, left out
  bool too_many = false;          // more than max_tags distinct tags: the object is refused
};

// head: "HTTP/1.1 200 OK\r\nName: value\r\n..." as the store keeps it. Every
// line of the field counts; tags are separated by spaces, tabs or commas.
ObjectTags object_tags(std::string_view head, const TagRules& rules);
// The same for one field value.
void add_tags(std::string_view value, const TagRules& rules, ObjectTags& out);

}  // namespace sumcache::daemon
