#pragma once
// Readable text for the admin endpoint's JSON (/stats, /peers, /filter).
// A field the daemon does not send shows as "-", so an older or newer daemon
// still prints.

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace sumcache::tools {

std::string format_stats(const nlohmann::json& stats);
std::string format_peers(const nlohmann::json& peers);
std::string format_filter(const nlohmann::json& filter);

// "1.5 MiB"; bytes below 1 KiB as "512 B".
std::string human_bytes(double bytes);

}  // namespace sumcache::tools
