#include "protocol/channel_auth.h"

#include <array>
#include <charconv>

#include "protocol/message_tag.h"
#include "protocol/node_id.h"
#include "protocol/peer_auth.h"
#include "protocol/wire_header.h"

namespace sumcache::protocol {
namespace {

constexpr std::string_view kRequestDomain = "sumcache-channel-request-v1\n";
constexpr std::string_view kAnswerDomain = "sumcache-channel-answer-v1\n";
constexpr std::size_t kMacHexBytes = 2 * kTagBytes;
constexpr std::string_view kSeparator = "; ";
// 12 digits reach the year 33658; 20 hold any uint64_t.
constexpr std::size_t kMaxTimeDigits = 12;
constexpr std::size_t kMaxLengthDigits = 20;
constexpr char kHexDigits[] = "0123456789abcdef";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool lower_hex(std::string_view s, std::size_t size) {
  if (s.size() != size) return false;
  for (char c : s) {
    if (hex_value(c) < 0) return false;
  }
  return true;
}

// Decimal digits, without a leading zero (one spelling per number), at most max_digits.
template <class T>
bool parse_number(std::string_view text, std::size_t max_digits, T& out) {
  if (text.empty() || text.size() > max_digits) return false;
  if (text.size() > 1 && text.front() == '0') return false;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
  }
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc{} && end == text.data() + text.size();
}

// Splits "a=1; b=2; ..." into exactly N values, the names in this order.
template <std::size_t N>
bool split_params(std::string_view value, const std::array<std::string_view, N>& names,
                  std::array<std::string_view, N>& out) {
  if (value.size() > kMaxChannelAuthBytes) return false;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) {
      if (!value.starts_with(kSeparator)) return false;
      value.remove_prefix(kSeparator.size());
    }
    const std::string_view name = names[i];
    if (value.size() <= name.size() || !value.starts_with(name) || value[name.size()] != '=') {
      return false;
    }
    value.remove_prefix(name.size() + 1);
    const auto end = value.find(';');
    out[i] = value.substr(0, end);
    value.remove_prefix(out[i].size());
  }
  return value.empty();
}

bool decode_mac(std::string_view hex, std::string& out) {
  if (!lower_hex(hex, kMacHexBytes)) return false;
  out.resize(kTagBytes);
  for (std::size_t i = 0; i < kTagBytes; ++i) {
    out[i] = static_cast<char>(hex_value(hex[2 * i]) * 16 + hex_value(hex[2 * i + 1]));
  }
  return true;
}

// `prefix` then the hex MAC of the signed bytes; empty when libcrypto fails.
std::string with_mac(std::string prefix, std::string signed_bytes, std::string_view secret) {
  const std::size_t signed_size = signed_bytes.size();
  if (!append_tag(signed_bytes, secret)) return {};
  prefix += "; mac=";
  for (std::size_t i = signed_size; i < signed_bytes.size(); ++i) {
    const auto byte = static_cast<unsigned char>(signed_bytes[i]);
    prefix.push_back(kHexDigits[byte >> 4]);
    prefix.push_back(kHexDigits[byte & 0x0f]);
  }
  return prefix;
}

bool valid_receiver(std::string_view method, std::string_view to) {
  return valid_node_id(to) || (to == kAnyReceiver && method == "GET");
}

void append_line(std::string& out, std::string_view field) {
  out.push_back('\n');
  out.append(field);
}

}  // namespace

bool valid_nonce(std::string_view nonce) { return lower_hex(nonce, kNonceHexBytes); }

std::string channel_request_signed_bytes(std::string_view method, std::string_view path,
                                         const ChannelRequestAuth& f) {
  std::string bytes(kRequestDomain);
  bytes.append(method);
  append_line(bytes, path);
  append_line(bytes, f.node);
  append_line(bytes, f.to);
  append_line(bytes, std::to_string(f.time));
  append_line(bytes, f.nonce);
  append_line(bytes, std::to_string(f.length));
  return bytes;
}

std::string channel_answer_signed_bytes(const ChannelAnswerAuth& f) {
  std::string bytes(kAnswerDomain);
  bytes.append(f.node);
  append_line(bytes, f.to);
  append_line(bytes, f.nonce);
  append_line(bytes, std::to_string(f.status));
  append_line(bytes, std::to_string(f.length));
  return bytes;
}

std::string sign_channel_request(std::string_view method, std::string_view path,
                                 const ChannelRequestAuth& f, std::string_view secret) {
  if (!valid_node_id(f.node) || !valid_receiver(method, f.to) || f.time < 0 ||
      f.time > 999'999'999'999 || !valid_nonce(f.nonce)) {
    return {};
  }
  std::string prefix = "node=" + std::string(f.node) + "; to=" + std::string(f.to) +
                       "; t=" + std::to_string(f.time) + "; n=" + std::string(f.nonce) +
                       "; len=" + std::to_string(f.length);
  return with_mac(std::move(prefix), channel_request_signed_bytes(method, path, f), secret);
}

std::string sign_channel_answer(const ChannelAnswerAuth& f, std::string_view secret) {
  if (!valid_node_id(f.node) || !valid_node_id(f.to) || !valid_nonce(f.nonce) || f.status < 100 ||
      f.status > 999) {
    return {};
  }
  std::string prefix = "node=" + std::string(f.node) + "; to=" + std::string(f.to) +
                       "; n=" + std::string(f.nonce) + "; status=" + std::to_string(f.status) +
                       "; len=" + std::to_string(f.length);
  return with_mac(std::move(prefix), channel_answer_signed_bytes(f), secret);
}

Result<ChannelRequestAuth> parse_channel_request(std::string_view value) {
  static constexpr std::array<std::string_view, 6> kNames{"node", "to", "t", "n", "len", "mac"};
  std::array<std::string_view, 6> v;
  ChannelRequestAuth f;
  if (!split_params(value, kNames, v) || !valid_node_id(v[0]) ||
      !(valid_node_id(v[1]) || v[1] == kAnyReceiver) ||
      !parse_number(v[2], kMaxTimeDigits, f.time) || !valid_nonce(v[3]) ||
      !parse_number(v[4], kMaxLengthDigits, f.length) || !lower_hex(v[5], kMacHexBytes)) {
    return make_error_code(ChannelAuthErrc::malformed);
  }
  f.node = v[0];
  f.to = v[1];
  f.nonce = v[3];
  f.mac_hex = v[5];
  return f;
}

Result<ChannelAnswerAuth> parse_channel_answer(std::string_view value) {
  static constexpr std::array<std::string_view, 6> kNames{"node",   "to",  "n",
                                                          "status", "len", "mac"};
  std::array<std::string_view, 6> v;
  ChannelAnswerAuth f;
  if (!split_params(value, kNames, v) || !valid_node_id(v[0]) || !valid_node_id(v[1]) ||
      !valid_nonce(v[2]) || v[3].size() != 3 || !parse_number(v[3], 3, f.status) ||
      f.status < 100 || !parse_number(v[4], kMaxLengthDigits, f.length) ||
      !lower_hex(v[5], kMacHexBytes)) {
    return make_error_code(ChannelAuthErrc::malformed);
  }
  f.node = v[0];
  f.to = v[1];
  f.nonce = v[2];
  f.mac_hex = v[5];
  return f;
}

Result<ChannelRequestAuth> verify_channel_request(std::string_view value,
                                                  const ChannelRequestFacts& facts,
                                                  std::string_view secret) {
  auto f = parse_channel_request(value);
  if (!f) return f.error();
  std::string mac;
  decode_mac(f->mac_hex, mac);  // parse checked it is 64 lowercase hex digits
  // The MAC first: what follows is told apart from a forgery, so the log says
  // "expired" or "another receiver" only of a header the secret's holder made.
  if (!tag_matches(channel_request_signed_bytes(facts.method, facts.path, *f), mac, secret)) {
    return make_error_code(ChannelAuthErrc::bad_mac);
  }
  if (f->to != facts.self && !(f->to == kAnyReceiver && facts.method == "GET")) {
    return make_error_code(ChannelAuthErrc::wrong_receiver);
  }
  if (f->length != facts.content_length) return make_error_code(ChannelAuthErrc::length_mismatch);
  if (f->time < facts.now - kPeerAuthWindowSeconds)
    return make_error_code(ChannelAuthErrc::expired);
  if (f->time > facts.now + kPeerAuthWindowSeconds) {
    return make_error_code(ChannelAuthErrc::from_future);
  }
  return f;
}

Result<std::string> verify_channel_answer(std::string_view value, const ChannelAnswerFacts& facts,
                                          std::string_view secret) {
  auto f = parse_channel_answer(value);
  if (!f) return f.error();
  std::string mac;
  decode_mac(f->mac_hex, mac);
  if (!tag_matches(channel_answer_signed_bytes(*f), mac, secret)) {
    return make_error_code(ChannelAuthErrc::bad_mac);
  }
  if (f->to != facts.self || (!facts.responder.empty() && f->node != facts.responder)) {
    return make_error_code(ChannelAuthErrc::wrong_receiver);
  }
  // A genuine answer to another request: a captured one, played back.
  if (f->nonce != facts.nonce) return make_error_code(ChannelAuthErrc::other_request);
  if (f->status != facts.status) return make_error_code(ChannelAuthErrc::bad_mac);
  if (f->length != facts.length) return make_error_code(ChannelAuthErrc::length_mismatch);
  return std::string(f->node);
}

}  // namespace sumcache::protocol
