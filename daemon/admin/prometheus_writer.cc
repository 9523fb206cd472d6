#include "daemon/admin/prometheus_writer.h"

#include <charconv>
#include <cmath>

namespace sumcache::daemon {
namespace {

std::string escape(std::string_view text, bool quotes) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string escape_label_value(std::string_view value) { return escape(value, true); }
std::string escape_help(std::string_view text) { return escape(text, false); }

std::string format_sample_value(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc{} ? std::string(buffer, end) : "NaN";
}

void PrometheusWriter::family(std::string_view name, std::string_view type, std::string_view help) {
  out_.append("# HELP ").append(name).append(" ").append(escape_help(help)).append("\n");
  out_.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

void PrometheusWriter::labels(MetricLabels labels) {
  if (labels.size() == 0) return;
  out_ += '{';
  bool first = true;
  for (const auto& [name, value] : labels) {
    if (!first) out_ += ',';
    first = false;
    out_.append(name).append("=\"").append(escape_label_value(value)).append("\"");
  }
  out_ += '}';
}

void PrometheusWriter::sample(std::string_view name, MetricLabels l, double value) {
  out_.append(name);
  labels(l);
  out_.append(" ").append(format_sample_value(value)).append("\n");
}

void PrometheusWriter::sample(std::string_view name, MetricLabels l, std::uint64_t value) {
  out_.append(name);
  labels(l);
  out_.append(" ").append(std::to_string(value)).append("\n");
}

}  // namespace sumcache::daemon
