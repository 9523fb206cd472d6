#include "config/size_string.h"

#include <array>
#include <charconv>
#include <limits>
#include <utility>

namespace sumcache::config {
namespace {

constexpr std::array<std::pair<std::string_view, std::uint64_t>, 5> kUnits{
    {{"B", 1}, {"KiB", kKiB}, {"MiB", kMiB}, {"GiB", kGiB}, {"TiB", kTiB}}};

std::optional<std::uint64_t> fail(std::string* why, std::string reason) {
  if (why != nullptr) *why = std::move(reason);
  return std::nullopt;
}

}  // namespace

std::optional<std::uint64_t> parse_size(std::string_view text, std::string* why) {
  std::uint64_t count = 0;
  const char* end = text.data() + text.size();
  auto [rest, ec] = std::from_chars(text.data(), end, count);
  if (rest == text.data()) {
    return fail(why, "size must start with a whole number of units, like \"256MiB\" (got \"" +
                         std::string(text) + "\")");
  }
  if (ec == std::errc::result_out_of_range) {
    return fail(why, "size \"" + std::string(text) + "\" is too large");
  }
  std::string_view unit(rest, static_cast<std::size_t>(end - rest));
  if (unit.starts_with(' ')) unit.remove_prefix(1);
  for (const auto& [name, factor] : kUnits) {
    if (unit != name) continue;
    if (count > std::numeric_limits<std::uint64_t>::max() / factor) {
      return fail(why, "size \"" + std::string(text) + "\" is too large");
    }
    return count * factor;
  }
  return fail(why, "size \"" + std::string(text) + "\" needs one of the units B, KiB, MiB, " +
                       "GiB, TiB (decimal units like MB are ambiguous and not accepted)");
}

std::string format_size(std::uint64_t bytes) {
  for (auto it = kUnits.rbegin(); it != kUnits.rend(); ++it) {
    if (bytes != 0 && bytes % it->second == 0) {
      return std::to_string(bytes / it->second) + std::string(it->first);
    }
  }
  return std::to_string(bytes) + "B";
}

}  // namespace sumcache::config
