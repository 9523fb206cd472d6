// The admin dashboard in a real browser: Debian's chromium, headless, loads the
// page from a running sumcached and the DOM it renders is checked against /stats.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "tests/daemon/integration/admin_node.h"

namespace sumcache::testing {
namespace {

// The value of `attribute` on the element with id `id` in serialized HTML, or nullopt.
std::optional<std::string> attribute(const std::string& dom, const std::string& id,
                                     const std::string& attribute_name) {
  const auto at = dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) return std::nullopt;
  const auto tag_start = dom.rfind('<', at);
  const auto tag_end = dom.find('>', at);
  const std::string tag = dom.substr(tag_start, tag_end - tag_start);
  const std::string key = " " + attribute_name + "=\"";
  const auto value = tag.find(key);
  if (value == std::string::npos) return std::nullopt;
  const auto start = value + key.size();
  return tag.substr(start, tag.find('"', start) - start);
}

double number_of(const std::optional<std::string>& text) {
  return text && !text->empty() ? std::stod(*text) : NAN;
}

struct BrowserRun {
  std::string dom;
  std::string console;  // chromium's log lines that carry the page's console messages
  std::string log;
};

// chromium --dump-dom after `budget_ms` of virtual time: timers run (the page polls every
// 2 s) while the clock waits for every fetch to finish, so the run takes about a second.
std::optional<BrowserRun> load_in_chromium(const std::string& url, int budget_ms) {
  DaemonProcess browser;
  const std::vector<std::string> args = {
      "--headless", "--disable-gpu", "--no-sandbox",  // root in CI, no display
      "--user-data-dir=" + (browser.dir() / "profile").string(),
      // Keep chromium's own traffic off the network: tests talk to loopback only.
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--disable-default-apps", "--disable-extensions", "--no-first-run",
      "--no-default-browser-check", "--metrics-recording-only", "--disable-breakpad",
      "--enable-logging=stderr", "--v=0", "--virtual-time-budget=" + std::to_string(budget_ms),
      "--dump-dom", url};
  if (browser.start(CHROMIUM_PATH, args)) return std::nullopt;
  const auto exit = browser.stop(0, std::chrono::seconds(45));
  if (!exit || exit->code != 0) return std::nullopt;
  BrowserRun run{browser.output(Output::out), "", browser.output(Output::err)};
  // Every console message, log or error, is an INFO:CONSOLE line; the page logs none.
  std::size_t pos = 0;
  while ((pos = run.log.find(":CONSOLE", pos)) != std::string::npos) {
    const auto end = run.log.find('\n', pos);
    run.console += run.log.substr(pos, end - pos) + "\n";
    pos = end;
  }
  return run;
}

nlohmann::json stats_of(AdminNode& node) {
  auto response = node.admin("/stats");
  if (!response || response->status != 200) return nullptr;
  return nlohmann::json::parse(response->body, nullptr, false);
}

TEST(Dashboard, ChromiumRendersTheSameNumbersAsStatsWithoutConsoleErrors) {
  AdminNode node;
  ASSERT_TRUE(node.start()) << node.failure;
  // One miss and two hits on a, one miss on b: 4 requests, local hit ratio 1/2.
  for (const char* path :
       {"/obj/a?max_age=600", "/obj/a?max_age=600", "/obj/a?max_age=600", "/obj/b?max_age=600"}) {
    auto response = node.fetch(path);
    ASSERT_TRUE(response) << response.error().message();
    ASSERT_EQ(response->status, 200U);
  }
  const auto before = stats_of(node);
  ASSERT_TRUE(before.is_object()) << node.daemon_log();

  const std::string url = "http://127.0.0.1:" + std::to_string(node.admin_port()) + "/";
  const auto run = load_in_chromium(url, 5000);
  ASSERT_TRUE(run) << "chromium (" << CHROMIUM_PATH << ") failed; scripts/setup installs it";
  const auto after = stats_of(node);
  // The page's own polling goes to the admin listener, which counts no proxy requests.
  ASSERT_EQ(before["requests"]["total"], after["requests"]["total"]);

  EXPECT_EQ(run->console, "") << "the page logged to the console";
  EXPECT_EQ(attribute(run->dom, "page-errors", "data-count"), "0") << run->dom;
  EXPECT_GE(number_of(attribute(run->dom, "status", "data-updates")), 1) << run->dom;
  EXPECT_EQ(number_of(attribute(run->dom, "requests-total", "data-value")),
            after["requests"]["total"].get<double>());
  EXPECT_EQ(after["requests"]["total"].get<double>(), 4);
  const double hit_ratio = after["ratios"]["since_start"]["hit"].get<double>();
  EXPECT_NEAR(number_of(attribute(run->dom, "hit-ratio-since-start", "data-value")), hit_ratio,
              1e-12);
  EXPECT_NEAR(hit_ratio, 0.5, 1e-12);
  EXPECT_EQ(number_of(attribute(run->dom, "filter-k", "data-value")), 4);
  EXPECT_GE(number_of(attribute(run->dom, "chart-samples", "data-value")), 1);
  EXPECT_NE(run->dom.find("id=\"peer-empty\""), std::string::npos);
}

}  // namespace
}  // namespace sumcache::testing
