#pragma once
// `promtool check metrics` (Prometheus's own linter and parser) over a
// /metrics body. promtool comes from Debian's prometheus package, which
// scripts/setup installs; a missing promtool fails the check, never skips it.

#include <string>

namespace sumcache::testing {

struct PromtoolCheck {
  bool passed = false;
  std::string output;  // promtool's findings, or why it could not run
};

PromtoolCheck promtool_check(const std::string& metrics_text);

}  // namespace sumcache::testing
