#include "daemon/peer/redis_member.h"

#include <nlohmann/json.hpp>

#include <array>
#include <limits>

#include "protocol/message_tag.h"
#include "protocol/node_id.h"
#include "protocol/wire_header.h"

namespace sumcache::daemon {
namespace {

constexpr std::string_view kDomain = "sumcache-member-v1\n";
constexpr char kHexDigits[] = "0123456789abcdef";
// A record is a few hundred bytes; a host name is at most 253 (RFC 1035 §2.3.4).
constexpr std::size_t kMaxRecordBytes = 1024;
constexpr std::size_t kMaxHostBytes = 253;
constexpr std::array<const char*, 8> kFields = {"id",          "host",   "http_port", "peer_port",
                                                 "icp_port",    "object_port", "weight", "epoch"};

std::string signed_bytes(std::string_view json) {
  std::string bytes(kDomain);
  bytes.append(json);
  return bytes;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Lowercase hex of exactly the tag's length.
std::optional<std::string> unhex_tag(std::string_view hex) {
  if (hex.size() != 2 * protocol::kTagBytes) return std::nullopt;
  std::string out(protocol::kTagBytes, '\0');
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int high = hex_value(hex[2 * i]);
    const int low = hex_value(hex[2 * i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    out[i] = static_cast<char>(high * 16 + low);
  }
  return out;
}

// A host as a record may name one: an IP literal or a DNS name, no spaces or controls.
bool valid_host(std::string_view host) {
  if (host.empty() || host.size() > kMaxHostBytes) return false;
  for (const char c : host) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '.' || c == '-' || c == ':' || c == '_';
    if (!ok) return false;
  }
  return true;
}

template <typename T>
bool take_unsigned(const nlohmann::json& j, const char* name, T& out, std::uint64_t min) {
  const auto& v = j.at(name);
  if (!v.is_number_unsigned()) return false;
  const auto value = v.get<std::uint64_t>();
  if (value < min || value > std::numeric_limits<T>::max()) return false;
  out = static_cast<T>(value);
  return true;
}

MemberDecode refuse(RedisRefusal why_kind, std::string why) {
  MemberDecode d;
  d.refusal = why_kind;
  d.why = std::move(why);
  return d;
}

}  // namespace

std::optional<std::string> encode_member(const MemberRecord& r, std::string_view secret) {
  // Written in the field order of kFields, always: the tag covers these bytes.
  nlohmann::ordered_json j;
  j["id"] = r.id;
  j["host"] = r.host;
  j["http_port"] = r.http_port;
  j["peer_port"] = r.peer_port;
  j["icp_port"] = r.icp_port;
  j["object_port"] = r.object_port;
  j["weight"] = r.weight;
  j["epoch"] = r.epoch;
  const std::string json = j.dump();
  std::string tagged = signed_bytes(json);
  if (!protocol::append_tag(tagged, secret)) return std::nullopt;
  std::string out = json;
  out.push_back('\n');
  for (std::size_t i = tagged.size() - protocol::kTagBytes; i < tagged.size(); ++i) {
    const auto b = static_cast<unsigned char>(tagged[i]);
    out.push_back(kHexDigits[b >> 4]);
    out.push_back(kHexDigits[b & 0xF]);
  }
  return out;
}

MemberDecode decode_member(std::string_view field, std::string_view stored,
                           std::string_view secret) {
  if (stored.size() > kMaxRecordBytes) {
    return refuse(RedisRefusal::member_malformed, "record larger than 1024 bytes");
  }
  const auto newline = stored.rfind('\n');
  if (newline == std::string_view::npos) {
    return refuse(RedisRefusal::member_malformed, "no tag after the record");
  }
  const std::string_view json = stored.substr(0, newline);
  const auto tag = unhex_tag(stored.substr(newline + 1));
  if (!tag) return refuse(RedisRefusal::member_malformed, "the tag is not 64 lowercase hex digits");
  if (!protocol::tag_matches(signed_bytes(json), *tag, secret)) {
    return refuse(RedisRefusal::member_bad_tag, "the tag is not the cluster secret's");
  }
  const auto j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return refuse(RedisRefusal::member_malformed, "not a JSON object");
  }
  if (j.size() != kFields.size()) {
    return refuse(RedisRefusal::member_malformed, "not exactly the eight fields of a record");
  }
  for (const char* name : kFields) {
    if (!j.contains(name)) return refuse(RedisRefusal::member_malformed, std::string("no ") + name);
  }
  MemberRecord r;
  if (!j["id"].is_string() || !j["host"].is_string()) {
    return refuse(RedisRefusal::member_malformed, "id and host must be strings");
  }
  r.id = j["id"].get<std::string>();
  r.host = j["host"].get<std::string>();
  if (!protocol::valid_node_id(r.id) || r.id != field) {
    return refuse(RedisRefusal::member_malformed, "id is not the hash field's node id");
  }
  if (!valid_host(r.host)) return refuse(RedisRefusal::member_malformed, "host is not a host");
  if (!take_unsigned(j, "http_port", r.http_port, 1) ||
      !take_unsigned(j, "peer_port", r.peer_port, 1) ||
      !take_unsigned(j, "icp_port", r.icp_port, 0) ||
      !take_unsigned(j, "object_port", r.object_port, 0) ||
      !take_unsigned(j, "weight", r.weight, 1) || !take_unsigned(j, "epoch", r.epoch, 0)) {
    return refuse(RedisRefusal::member_malformed, "a port, the weight or the epoch is out of range");
  }
  MemberDecode d;
  d.record = std::move(r);
  return d;
}

config::PeerConfig member_peer(const MemberRecord& record) {
  config::PeerConfig p;
  p.id = record.id;
  p.host = record.host;
  p.http_port = record.http_port;
  p.peer_port = record.peer_port;
  p.icp_port = record.icp_port;
  p.object_port = record.object_port;
  p.weight = record.weight;
  return p;
}

}  // namespace sumcache::daemon
