#include "daemon/http/peer_answer.h"

namespace sumcache::daemon {

namespace {

// The field's first token, compared case-insensitively ("MISS from squid-1").
bool first_token_is(std::string_view value, std::string_view token) {
  const auto start = value.find_first_not_of(" \t");
  if (start == std::string_view::npos) return false;
  value.remove_prefix(start);
  const auto end = value.find_first_of(" \t");
  const std::string_view first = value.substr(0, end);
  if (first.size() != token.size()) return false;
  for (std::size_t i = 0; i < token.size(); ++i) {
    const char c = first[i] >= 'a' && first[i] <= 'z' ? static_cast<char>(first[i] - 32) : first[i];
    if (c != token[i]) return false;
  }
  return true;
}

}  // namespace

PeerAnswer classify_peer_answer(unsigned status, std::string_view x_cache) {
  if (status == 504) return PeerAnswer::false_hit;
  if (first_token_is(x_cache, "ERROR")) return PeerAnswer::error;
  if (first_token_is(x_cache, "MISS")) return PeerAnswer::false_hit;
  return PeerAnswer::hit;
}

}  // namespace sumcache::daemon
