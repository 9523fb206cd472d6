#include "protocol/peer_auth.h"

#include <charconv>

#include "protocol/message_tag.h"
#include "protocol/node_id.h"
#include "protocol/wire_header.h"

namespace sumcache::protocol {
namespace {

constexpr std::string_view kDomain = "sumcache-peer-auth-v1\n";
constexpr std::string_view kOwnerFetchDomain = "sumcache-owner-fetch-v1\n";
constexpr std::size_t kMacHexBytes = 2 * kTagBytes;
// 12 digits reach the year 33658; a longer t is no clock's.
constexpr std::size_t kMaxTimeDigits = 12;
constexpr char kHexDigits[] = "0123456789abcdef";

bool is_ows(char c) { return c == ' ' || c == '\t'; }

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && is_ows(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_ows(s.back())) s.remove_suffix(1);
  return s;
}

// "name=value" with this name; the value is what follows '=' up to the end.
bool take_param(std::string_view part, std::string_view name, std::string_view& value) {
  part = trim_ows(part);
  if (part.size() <= name.size() || !part.starts_with(name) || part[name.size()] != '=') {
    return false;
  }
  value = part.substr(name.size() + 1);
  return true;
}

bool parse_time(std::string_view text, std::int64_t& out) {
  if (text.empty() || text.size() > kMaxTimeDigits) return false;
  if (text.size() > 1 && text.front() == '0') return false;  // one spelling per time
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Lowercase only: one spelling per MAC.
bool decode_mac(std::string_view hex, std::string& out) {
  if (hex.size() != kMacHexBytes) return false;
  out.resize(kTagBytes);
  for (std::size_t i = 0; i < kTagBytes; ++i) {
    const int high = hex_value(hex[2 * i]);
    const int low = hex_value(hex[2 * i + 1]);
    if (high < 0 || low < 0) return false;
    out[i] = static_cast<char>(high * 16 + low);
  }
  return true;
}

}  // namespace

std::string peer_auth_signed_bytes(std::string_view method, std::string_view target,
                                   std::int64_t time, std::string_view node, PeerAuthScope scope) {
  const std::string_view domain = scope == PeerAuthScope::owner_fetch ? kOwnerFetchDomain : kDomain;
  std::string bytes;
  bytes.reserve(domain.size() + method.size() + target.size() + node.size() + 24);
  bytes.append(domain);
  bytes.append(method);
  bytes.push_back('\n');
  bytes.append(target);
  bytes.push_back('\n');
  bytes.append(std::to_string(time));
  bytes.push_back('\n');
  bytes.append(node);
  return bytes;
}

std::string sign_peer_request(std::string_view method, std::string_view target,
                              std::string_view node, std::int64_t time, std::string_view secret,
                              PeerAuthScope scope) {
  if (!valid_node_id(node) || time < 0) return {};
  std::string tagged = peer_auth_signed_bytes(method, target, time, node, scope);
  const std::size_t signed_size = tagged.size();
  if (!append_tag(tagged, secret)) return {};
  std::string value = "node=" + std::string(node) + "; t=" + std::to_string(time) + "; mac=";
  for (std::size_t i = signed_size; i < tagged.size(); ++i) {
    const auto byte = static_cast<unsigned char>(tagged[i]);
    value.push_back(kHexDigits[byte >> 4]);
    value.push_back(kHexDigits[byte & 0x0f]);
  }
  return value;
}

Result<PeerAuthFields> parse_peer_auth(std::string_view value) {
  const std::error_code malformed = PeerAuthErrc::malformed;
  if (value.size() > kMaxPeerAuthBytes) return malformed;
  const auto first = value.find(';');
  if (first == std::string_view::npos) return malformed;
  const auto second = value.find(';', first + 1);
  if (second == std::string_view::npos || value.find(';', second + 1) != std::string_view::npos) {
    return malformed;
  }
  PeerAuthFields fields;
  std::string_view time;
  if (!take_param(value.substr(0, first), "node", fields.node) ||
      !take_param(value.substr(first + 1, second - first - 1), "t", time) ||
      !take_param(value.substr(second + 1), "mac", fields.mac_hex)) {
    return malformed;
  }
  if (!valid_node_id(fields.node) || !parse_time(time, fields.time) ||
      fields.mac_hex.size() != kMacHexBytes) {
    return malformed;
  }
  return fields;
}

Result<std::string> verify_peer_request(std::string_view value, std::string_view method,
                                        std::string_view target, std::int64_t now,
                                        const SecretLookup& secret_for, PeerAuthScope scope) {
  auto fields = parse_peer_auth(value);
  if (!fields) return fields.error();
  std::string mac;
  if (!decode_mac(fields->mac_hex, mac)) return make_error_code(PeerAuthErrc::malformed);
  const auto secret = secret_for(fields->node);
  if (!secret) return make_error_code(PeerAuthErrc::unknown_node);
  // The MAC before the time: a genuine header outside the window is told apart
  // from a forged one, so the log says "expired" only for a replay or a skewed clock.
  if (!tag_matches(peer_auth_signed_bytes(method, target, fields->time, fields->node, scope), mac,
                   *secret)) {
    return make_error_code(PeerAuthErrc::bad_mac);
  }
  if (fields->time < now - kPeerAuthWindowSeconds) return make_error_code(PeerAuthErrc::expired);
  if (fields->time > now + kPeerAuthWindowSeconds) {
    return make_error_code(PeerAuthErrc::from_future);
  }
  return std::string(fields->node);
}

}  // namespace sumcache::protocol
