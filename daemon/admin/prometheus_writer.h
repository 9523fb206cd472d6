#pragma once
// Prometheus text exposition format 0.0.4: a HELP and a TYPE line per family,
// then its samples. Label values escape \, " and newline; HELP text escapes
// \ and newline (the format's only escapes). The caller keeps each family's
// samples together, as the format requires.

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace sumcache::daemon {

using MetricLabels = std::initializer_list<std::pair<std::string_view, std::string_view>>;

std::string escape_label_value(std::string_view value);
std::string escape_help(std::string_view text);
// Shortest text that reads back as the same double; NaN, +Inf and -Inf as
// Prometheus spells them.
std::string format_sample_value(double value);

class PrometheusWriter {
 public:
  // type: "counter", "gauge" or "histogram".
  void family(std::string_view name, std::string_view type, std::string_view help);
  void sample(std::string_view name, MetricLabels labels, double value);
  void sample(std::string_view name, MetricLabels labels, std::uint64_t value);
  // A family of one unlabelled sample: family() then sample(), for a count
  // (std::uint64_t) or a measure (double) alike.
  template <class Value>
  void single(std::string_view name, std::string_view type, std::string_view help, Value value) {
    family(name, type, help);
    sample(name, {}, value);
  }
  const std::string& text() const { return out_; }

 private:
  void labels(MetricLabels labels);
  std::string out_;
};

}  // namespace sumcache::daemon
