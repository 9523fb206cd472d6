// Readers of the limits, cache, filter and log sections. The ranges here are the ones
// docs/configuration.md lists; the reasons for the less obvious ones are given there.

#include <algorithm>
#include <cctype>
#include <string_view>

#include "config/section_readers.h"

namespace sumcache::config::detail {
namespace {

constexpr std::int64_t kHourMs = 3'600'000;
constexpr std::int64_t kYearMs = std::int64_t{365} * 24 * kHourMs;
// Budgets stay far below 2^63 so that sums and products of them cannot overflow.
constexpr std::uint64_t kMaxMemoryBytes = 64 * kTiB;
constexpr std::uint64_t kMaxDiskBytes = 1024 * kTiB;
constexpr std::size_t kMaxTagHeaderBytes = 64;
// Each listed field is looked up in every response that is stored.
constexpr std::size_t kMaxTargetedFields = 8;

// tchar (RFC 9110 §5.6.2): what a field name is made of.
bool is_tchar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_field_name(std::string_view name) {
  return !name.empty() && name.size() <= kMaxTagHeaderBytes &&
         std::all_of(name.begin(), name.end(), is_tchar);
}

bool iequal(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

// RFC 9213 §2.1: targeted field names in order of precedence. Cache-Control is
// what they take precedence over, so it cannot be one of them.
void read_targeted_fields(ObjectReader& r, std::vector<std::string>& out) {
  const Json* v = r.find("targeted_fields");
  if (v == nullptr) return;
  const std::string path = r.path_of("targeted_fields");
  if (v->is_array() && v->size() > kMaxTargetedFields) {
    throw ConfigError(path, "must list at most " + std::to_string(kMaxTargetedFields) + " fields");
  }
  out.clear();
  for_each_element(*v, path, [&](const Json& element, const std::string& element_path) {
    const std::string& name = as_string(element, element_path);
    if (!is_field_name(name)) {
      throw ConfigError(element_path,
                        "must be a field name: 1 to 64 letters, digits or !#$%&'*+-.^_`|~");
    }
    if (iequal(name, "Cache-Control")) {
      throw ConfigError(element_path,
                        "must not be Cache-Control: targeted fields take precedence over it");
    }
    if (std::ranges::any_of(out, [&](const std::string& seen) { return iequal(seen, name); })) {
      throw ConfigError(element_path, "\"" + name + "\" is listed twice");
    }
    out.push_back(name);
  });
}

}  // namespace

void read_limits(ObjectReader& r, LimitsConfig& out) {
  r.read_size("max_header_bytes", out.max_header_bytes, kKiB, kMiB);
  r.read_size("max_body_bytes", out.max_body_bytes, 0, kTiB);
  r.read_integer("max_connections", out.max_connections, 1, 1'000'000);
  r.read("client_idle_timeout_ms", out.client_idle_timeout_ms, 1, kHourMs);
  r.read("client_request_timeout_ms", out.client_request_timeout_ms, 1, kHourMs);
  r.read("upstream_connect_timeout_ms", out.upstream_connect_timeout_ms, 1, kHourMs);
  r.read("upstream_first_byte_timeout_ms", out.upstream_first_byte_timeout_ms, 1, kHourMs);
  r.read("upstream_io_timeout_ms", out.upstream_io_timeout_ms, 1, kHourMs);
  r.read("upstream_idle_timeout_ms", out.upstream_idle_timeout_ms, 1, kHourMs);
  r.read_integer("upstream_max_idle_per_origin", out.upstream_max_idle_per_origin, 0, 65536);
  r.read_integer("http2_max_concurrent_streams", out.http2_max_concurrent_streams, 1, 10000);
  r.read_integer("http2_max_resets_per_second", out.http2_max_resets_per_second, 1, 100000);
  r.read_integer("http2_max_control_frames_per_second", out.http2_max_control_frames_per_second,
                 1, 100000);
  r.read_integer("http2_max_continuations", out.http2_max_continuations, 1, 1000);
  r.read_integer("http2_header_table_size", out.http2_header_table_size, 0, 65536);
  r.read("upstream_unsafe_reuse_ms", out.upstream_unsafe_reuse_ms, 0, kHourMs);
  r.read("collapsed_wait_ms", out.collapsed_wait_ms, 0, kHourMs);
  r.read("drain_timeout_ms", out.drain_timeout_ms, 0, kHourMs);
  r.read("dns_timeout_ms", out.dns_timeout_ms, 1, kHourMs);
}

void read_cache(ObjectReader& r, CacheConfig& out) {
  r.section("memory", [&](ObjectReader& memory) {
    memory.read_size("max_bytes", out.memory.max_bytes, kMiB, kMaxMemoryBytes);
  });
  r.section("disk", [&](ObjectReader& disk) {
    disk.read("enabled", out.disk.enabled);
    disk.read("path", out.disk.path);
    disk.read_size("max_bytes", out.disk.max_bytes, kMiB, kMaxDiskBytes);
    disk.read("fsync", out.disk.fsync);
    if (out.disk.enabled && out.disk.path.empty()) {
      throw ConfigError(disk.path_of("path"), "must not be empty while the disk tier is enabled");
    }
  });
  r.read_size("max_object_bytes", out.max_object_bytes, 1, kTiB);
  r.read("heuristic_fraction", out.heuristic_fraction, 0.0, 1.0);
  r.read("heuristic_max_ms", out.heuristic_max_ms, 0, kYearMs);
  r.read_integer("shards", out.shards, 1, 1024);
  r.read("tag_header", out.tag_header);
  if (!is_field_name(out.tag_header)) {
    throw ConfigError(r.path_of("tag_header"),
                      "must be a field name: 1 to 64 letters, digits or !#$%&'*+-.^_`|~");
  }
  r.read("tag_header_pass", out.tag_header_pass);
  r.read_integer("max_tags_per_object", out.max_tags_per_object, 1, 1024);
  r.read_integer("tag_index_max_entries", out.tag_index_max_entries, 0, std::int64_t{1} << 32);
  // 10,000: the store's kMaxVariantsPerKey (a new variant's insert walks the key's).
  r.read_integer("max_variants_per_key", out.max_variants_per_key, 1, 10'000);
  read_targeted_fields(r, out.targeted_fields);
}

void read_filter(ObjectReader& r, FilterConfig& out) {
  r.read_enum("kind", out.kind);
  r.read("bits_per_entry", out.bits_per_entry, 4.0, 64.0);
  r.read_integer("hashes", out.hashes, 1, 16);
  r.read("target_fpr", out.target_fpr, 0.0, 0.5);
  r.read_enum("objective", out.objective);
  r.read_integer("expected_entries", out.expected_entries, 0, std::int64_t{1} << 38);
  r.read_size("avg_object_bytes", out.avg_object_bytes, 64, kGiB);
}

void read_log(ObjectReader& r, LogConfig& out) {
  r.read_enum("level", out.level);
  r.read("access_log", out.access_log);
  r.read_enum("access_format", out.access_format);
  r.read("error_log", out.error_log);
  if (out.error_log.empty()) {
    throw ConfigError(r.path_of("error_log"), "must not be empty (\"-\" is stderr)");
  }
}

}  // namespace sumcache::config::detail
