#include "config/read_config.h"

#include "config/cross_checks.h"
#include "config/enum_names.h"
#include "config/net_syntax.h"
#include "config/section_readers.h"

namespace sumcache::config::detail {
namespace {

// Each mode has its own section; the other mode's section is an error, not silently ignored,
// so that a config meant for one mode is never run in the other.
void read_mode_sections(ObjectReader& r, Config& c) {
  const char* other = c.mode == Mode::forward ? "reverse" : "forward";
  if (r.find(other) != nullptr) {
    throw ConfigError(r.path_of(other), std::string(other) + " section given but mode is " +
                                            std::string(enum_name(c.mode)));
  }
  r.section("reverse", [&](ObjectReader& s) { read_reverse(s, c.reverse); });
  r.section("forward", [&](ObjectReader& s) { read_forward(s, c.forward); });
  if (c.mode == Mode::reverse && c.reverse.origin.host.empty()) {
    throw ConfigError("$.reverse.origin", "required in reverse mode");
  }
}

}  // namespace

Config read_config(const Json& root) {
  Config c;
  ObjectReader::read_object(root, "$", [&](ObjectReader& r) {
    r.section("node", [&](ObjectReader& s) {
      s.read("id", c.node.id);
      require(s.path_of("id"), check_node_id(c.node.id));
    });
    r.read_enum("mode", c.mode);
    r.read_integer("workers", c.workers, 0, 256);
    if (const Json* v = r.find("listen")) read_listen(*v, r.path_of("listen"), c.listen);
    r.section("admin", [&](ObjectReader& s) { read_admin(s, c.admin); });
    read_mode_sections(r, c);
    r.section("access", [&](ObjectReader& s) { read_access(s, c.access); });
    r.section("limits", [&](ObjectReader& s) { read_limits(s, c.limits); });
    r.section("cache", [&](ObjectReader& s) { read_cache(s, c.cache); });
    r.section("filter", [&](ObjectReader& s) { read_filter(s, c.filter); });
    r.section("log", [&](ObjectReader& s) { read_log(s, c.log); });
    r.section("cluster", [&](ObjectReader& s) { read_cluster(s, c.cluster); });
    if (const Json* v = r.find("peers")) read_peers(*v, r.path_of("peers"), c.peers);
  });
  check_cross_fields(c);
  return c;
}

}  // namespace sumcache::config::detail
