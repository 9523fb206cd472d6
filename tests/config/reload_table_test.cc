// The table of live-reloadable settings (config/reload_table.h) against what uses and
// describes it: the reload code (apply_live, restart_required_changes), and
// docs/configuration.md's generated list and SIGHUP column.

#include "config/reload_table.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config/config_json.h"
#include "config/load_config.h"
#include "config/reload.h"

namespace sumcache::config {
namespace {

using Paths = std::vector<std::string>;

std::string read_doc() {
  std::ifstream in(SUMCACHE_CONFIG_DOC);
  std::stringstream doc;
  doc << in.rdbuf();
  return doc.str();
}

// Cells of a markdown table row, split at '|' but not at an escaped "\|".
std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cell;
  for (std::size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '|' && line[i - 1] != '\\') {
      const auto first = cell.find_first_not_of(' ');
      const auto last = cell.find_last_not_of(' ');
      out.push_back(first == std::string::npos ? "" : cell.substr(first, last - first + 1));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return out;
}

// Every path of a changed field in any config: "$.peers[0].weight".
void leaf_paths(const nlohmann::json& j, const std::string& path, Paths& out) {
  if (j.is_object() && !j.empty()) {
    for (const auto& item : j.items()) leaf_paths(item.value(), path + "." + item.key(), out);
  } else if (j.is_array() && !j.empty() && j[0].is_object()) {
    for (std::size_t i = 0; i < j.size(); ++i) {
      leaf_paths(j[i], path + "[" + std::to_string(i) + "]", out);
    }
  } else {
    out.push_back(path);
  }
}

// Whether `path` ("$.peers[0].weight") falls under `rule` ("$.peers[*].weight", "$.peers").
bool under(std::string_view rule, std::string path) {
  for (std::size_t at; (at = path.find("[0]")) != std::string::npos;) path.replace(at, 3, "[*]");
  return path == rule || path.starts_with(std::string(rule) + ".") ||
         path.starts_with(std::string(rule) + "[");
}

TEST(ReloadTable, TheLongestRuleDecides) {
  EXPECT_EQ(reload_class("$.peers[3].weight"), ReloadClass::live);
  EXPECT_EQ(reload_class("$.peers[3].host"), ReloadClass::live_summary);
  EXPECT_EQ(reload_class("$.peers"), ReloadClass::live_summary);
  EXPECT_EQ(reload_class("$.limits.max_connections"), ReloadClass::live);
  EXPECT_EQ(reload_class("$.limitsx"), ReloadClass::restart);
  EXPECT_EQ(reload_class("$.workers"), ReloadClass::restart);
  EXPECT_EQ(reload_class("$.admin.token"), ReloadClass::live);
  EXPECT_EQ(reload_class("$.admin.token_file"), ReloadClass::live);
  EXPECT_EQ(reload_class("$.admin.port"), ReloadClass::restart);
}

TEST(ReloadTable, EveryRuleNamesAFieldOfTheConfig) {
  // The writer gives the section of the config's mode only: one config of each.
  Paths paths;
  for (const char* json : {R"({"peers": [{"id": "p", "host": "h"}]})",
                           R"({"mode": "reverse", "reverse": {"origin": "http://o"}})",
                           R"({"listen": [{"tls": {"certificates": [{"cert_file": "c",
                                                                     "key_file": "k"}]}}],
                               "admin": {"tls": {"certificates": [{"cert_file": "c",
                                                                   "key_file": "k"}]}}})"}) {
    leaf_paths(to_json(parse_config(json, "t"), false), "$", paths);
  }
  for (const ReloadRule& rule : reload_table()) {
    const bool found = std::any_of(paths.begin(), paths.end(),
                                   [&](const std::string& path) { return under(rule.path, path); });
    EXPECT_TRUE(found) << rule.path << " names no field of the config";
  }
}

TEST(ReloadTable, TheDocsListTheLiveFieldsOfTheTable) {
  const std::string doc = read_doc();
  const std::string begin = "<!-- reload-table:begin";
  const std::string end = "<!-- reload-table:end -->";
  const auto from = doc.find(begin);
  const auto to = doc.find(end);
  ASSERT_NE(from, std::string::npos) << "no reload-table markers in " << SUMCACHE_CONFIG_DOC;
  ASSERT_NE(to, std::string::npos);
  const auto body = doc.find('\n', from) + 1;
  const std::string listed = doc.substr(body, to - body);
  EXPECT_EQ(listed, reload_table_markdown())
      << "docs/configuration.md's list between the reload-table markers must read:\n"
      << reload_table_markdown();
}

TEST(ReloadTable, TheDocsSighupColumnAgreesWithTheTable) {
  std::istringstream doc(read_doc());
  std::ptrdiff_t column = -1;  // the SIGHUP column of the table being read
  std::size_t rows = 0;
  for (std::string line; std::getline(doc, line);) {
    if (!line.starts_with("|")) {
      column = -1;
      continue;
    }
    const auto row = cells(line);
    if (!row.empty() && row[0] == "field") {
      const auto at = std::find(row.begin(), row.end(), "SIGHUP");
      column = at == row.end() ? -1 : at - row.begin();
      continue;
    }
    if (column < 0 || row.size() <= static_cast<std::size_t>(column) || !row[0].starts_with("`")) {
      continue;
    }
    std::string field = row[0].substr(1, row[0].find('`', 1) - 1);
    for (std::size_t at; (at = field.find("[]")) != std::string::npos;) field.replace(at, 2, "[0]");
    EXPECT_EQ(row[static_cast<std::size_t>(column)], to_string(reload_class("$." + field)))
        << field;
    ++rows;
  }
  EXPECT_GT(rows, 50U) << "the field tables were not found";
}

// Pairs of (running, next) that between them change a field under every rule of the table,
// and some fields that need a restart.
struct Reload {
  const char* running;
  const char* next;
};
constexpr Reload kReloads[] = {
    {R"({"cluster": {"sharing": "summary", "secret": "0123456789abcdef"},
         "peers": [{"id": "a", "host": "h1"}]})",
     R"({"workers": 3,
         "listen": [{"address": "127.0.0.1", "port": 8080}],
         "admin": {"token": "new", "allow": ["10.0.0.0/8"], "port": 9000},
         "forward": {"connect_ports": [443, 563], "allow_ports": ["443"]},
         "access": {"allow_clients": ["10.1.0.0/16"], "deny_destinations": []},
         "limits": {"max_connections": 5, "client_idle_timeout_ms": 1000},
         "cache": {"heuristic_fraction": 0.2, "heuristic_max_ms": 1000, "shards": 8,
                   "targeted_fields": ["Sumcache-Cache-Control", "CDN-Cache-Control"]},
         "log": {"level": "debug", "access_format": "combined", "access_log": "/var/log/a"},
         "cluster": {"sharing": "summary", "secret": "0123456789abcdef",
                     "update_threshold_percent": 5, "update_max_interval_ms": 1000,
                     "summary_expiry_ms": 2000, "peer_timeout_ms": 50, "store_peer_hits": false,
                     "miss_policy": "owner", "peer_grace_ms": 1000, "peer_max_connections": 3},
         "peers": [{"id": "a", "host": "h2", "weight": 9}]})"},
    // TLS files and rules reload; TLS turned on for another listener waits for a restart.
    {R"({"listen": [{"port": 443, "tls": {"certificates": [{"cert_file": "a", "key_file": "b"}]}},
                    {"port": 80}],
         "admin": {"tls": {"certificates": [{"cert_file": "a", "key_file": "b"}]}}})",
     R"({"listen": [{"port": 443, "tls": {"certificates": [{"cert_file": "c", "key_file": "d"}],
                                          "min_version": "1.3"}},
                    {"port": 80, "tls": {"certificates": [{"cert_file": "c", "key_file": "d"}]}}],
         "admin": {"tls": {"certificates": [{"cert_file": "a", "key_file": "b"}],
                           "session_cache_size": 0}}})"},
    {R"({"mode": "reverse", "reverse": {"origin": "http://127.0.0.1:8081"}})",
     R"({"mode": "reverse", "admin": {"token_file": "token"},
         "reverse": {"origin": "http://127.0.0.1:8082", "host_header": "origin"}})"},
};

TEST(ApplyLive, AppliesExactlyTheFieldsTheTableCallsLive) {
  std::vector<std::string> exercised;
  for (const Reload& r : kReloads) {
    const Config running = parse_config(r.running, "running");
    Config next = parse_config(r.next, "next");
    if (!next.admin.token_file.empty()) next.admin.token = "from the file";
    const Config merged = apply_live(running, next);
    const Paths applied = changed_paths(running, merged);
    // Applied: only fields the table calls live.
    for (const std::string& path : applied) {
      EXPECT_NE(reload_class(path), ReloadClass::restart) << path << " applied live";
      exercised.push_back(path);
    }
    // Left out: exactly what the reload line names as needing a restart.
    EXPECT_EQ(changed_paths(merged, next), restart_required_changes(running, next)) << r.next;
    EXPECT_FALSE(restart_required_changes(running, next).empty()) << r.next;
  }
  // Between them the fixtures change a field under every rule, so that each is checked.
  for (const ReloadRule& rule : reload_table()) {
    EXPECT_TRUE(std::any_of(exercised.begin(), exercised.end(),
                            [&](const std::string& p) { return under(rule.path, p); }))
        << rule.path << ": no change under it was applied";
  }
}

TEST(ApplyLive, OutsideSummaryModeThePeersListWaitsForARestartButAWeightDoesNot) {
  const Config running = parse_config(R"({"peers": [{"id": "a", "host": "h1"}]})", "running");
  const Config next =
      parse_config(R"({"peers": [{"id": "a", "host": "h2", "weight": 4}]})", "next");
  const Config merged = apply_live(running, next);
  EXPECT_EQ(changed_paths(running, merged), Paths{"$.peers[0].weight"});
  EXPECT_EQ(changed_paths(merged, next), restart_required_changes(running, next));
  EXPECT_EQ(restart_required_changes(running, next), Paths{"$.peers[0].host"});
}

}  // namespace
}  // namespace sumcache::config
