// The JSON config loader (config/load_config.h) on any text: it either returns a
// Config or throws ConfigError naming the field; anything else escaping is a
// finding. Properties: to_json() of a loaded config loads back equal (config_json.h
// promises it), and what SIGHUP would compare against the defaults is computable.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "config/config_error.h"
#include "config/config_json.h"
#include "config/default_config.h"
#include "config/load_config.h"
#include "config/reload.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache::config;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Config config;
  try {
    config = parse_config(text, "fuzz.json");
  } catch (const ConfigError&) {
    return 0;
  }
  const auto dumped = to_json(config, false).dump();
  Config again;
  try {
    again = parse_config(dumped, "to_json");
  } catch (const ConfigError& e) {
    std::fprintf(stderr, "to_json output refused: %s\n%s\n", e.what(), dumped.c_str());
    std::abort();
  }
  SUMCACHE_FUZZ_CHECK(again == config);
  static_cast<void>(config_digest(config));
  static const Config defaults = default_config();
  static_cast<void>(changed_paths(defaults, config));
  static_cast<void>(restart_required_changes(defaults, config));
  return 0;
}
