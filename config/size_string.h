#pragma once
// Byte sizes as the config writes them: an integer of bytes, or a string of digits and a
// binary unit ("256MiB"). Decimal units (KB, MB) are refused, not guessed: a reader cannot
// tell whether "10MB" meant 10^7 or 10 * 2^20 bytes.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sumcache::config {

inline constexpr std::uint64_t kKiB = std::uint64_t{1} << 10;
inline constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
inline constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;
inline constexpr std::uint64_t kTiB = std::uint64_t{1} << 40;

// "<digits>[ ]<unit>" with unit one of B, KiB, MiB, GiB, TiB (case as written).
// Returns nullopt, and the reason in *why when given, for anything else or on overflow.
std::optional<std::uint64_t> parse_size(std::string_view text, std::string* why = nullptr);

// The largest unit that divides bytes exactly: 268435456 -> "256MiB", 1000 -> "1000B".
std::string format_size(std::uint64_t bytes);

}  // namespace sumcache::config
