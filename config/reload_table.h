#pragma once
// The one table of what a SIGHUP applies live (docs/configuration.md, "Reloading"): the reload
// classifier (reload.h) reads it, apply_live() carries it out and config_test checks both, the
// docs' SIGHUP column and their generated list of live fields against it.

#include <span>
#include <string>
#include <string_view>

namespace sumcache::config {

enum class ReloadClass {
  live,          // applied at SIGHUP
  live_summary,  // applied at SIGHUP when the running and the new config both share summaries
  restart,       // kept until a restart
};

// A field or a section by JSON path; "[*]" stands for any array index.
struct ReloadRule {
  std::string_view path;
  ReloadClass reload;
  std::string_view note = {};  // for the docs' list
};

// Every rule; a path no rule covers needs a restart.
std::span<const ReloadRule> reload_table();

// The class of the longest rule that is `path` or one of its parents ("$.peers[3].weight" falls
// under "$.peers[*].weight" before "$.peers").
ReloadClass reload_class(std::string_view path);

// "live", "live (summary)", "restart": the docs' SIGHUP column.
std::string_view to_string(ReloadClass reload);

// The list of live fields docs/configuration.md carries between its reload-table markers.
std::string reload_table_markdown();

}  // namespace sumcache::config
