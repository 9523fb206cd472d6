#pragma once
// Reading a Prometheus text body in tests: "name{labels}" -> value for every
// sample line (comments and blank lines skipped).

#include <map>
#include <sstream>
#include <string>

namespace sumcache::testing {

inline std::map<std::string, std::string> metric_samples(const std::string& text) {
  std::map<std::string, std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    out[line.substr(0, space)] = line.substr(space + 1);
  }
  return out;
}

}  // namespace sumcache::testing
