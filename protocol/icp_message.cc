#include "protocol/icp_message.h"

#include "protocol/big_endian.h"  // RFC 2186 fields are in network byte order

namespace sumcache::protocol {
namespace {

bool is_known(std::uint8_t opcode) {
  switch (static_cast<IcpOpcode>(opcode)) {
    case IcpOpcode::query:
    case IcpOpcode::hit:
    case IcpOpcode::miss:
    case IcpOpcode::err:
    case IcpOpcode::secho:
    case IcpOpcode::decho:
    case IcpOpcode::miss_nofetch:
    case IcpOpcode::denied:
    case IcpOpcode::hit_obj:
      return true;
  }
  return false;
}

std::size_t payload_prefix(IcpOpcode opcode) { return opcode == IcpOpcode::query ? 4 : 0; }

}  // namespace

std::size_t icp_encoded_size(const IcpMessage& message) {
  return kIcpHeaderSize + payload_prefix(message.opcode) + message.url.size() + 1;
}

std::error_code encode_icp(const IcpMessage& message, std::vector<std::uint8_t>& out) {
  if (message.opcode == IcpOpcode::hit_obj) return IcpErrc::not_encodable;
  if (!is_known(static_cast<std::uint8_t>(message.opcode))) return IcpErrc::unknown_opcode;
  if (message.url.size() > kIcpMaxUrl) return IcpErrc::url_too_long;
  if (message.url.find('\0') != std::string_view::npos) return IcpErrc::invalid_url;
  const std::size_t size = icp_encoded_size(message);  // <= 20 + 4 + 8192 + 1: fits 16 bits
  out.assign(size, 0);
  std::uint8_t* p = out.data();
  p[0] = static_cast<std::uint8_t>(message.opcode);
  p[1] = kIcpVersion;
  put_be16(p + 2, static_cast<std::uint16_t>(size));
  put_be32(p + 4, message.request_number);
  put_be32(p + 8, message.options);
  put_be32(p + 12, message.option_data);
  put_be32(p + 16, message.sender_address);
  p += kIcpHeaderSize;
  if (message.opcode == IcpOpcode::query) {
    put_be32(p, message.requester_address);
    p += 4;
  }
  message.url.copy(reinterpret_cast<char*>(p), message.url.size());  // the NUL is already there
  return {};
}

Result<std::vector<std::uint8_t>> encode_icp(const IcpMessage& message) {
  std::vector<std::uint8_t> out;
  if (auto ec = encode_icp(message, out)) return ec;
  return out;
}

Result<IcpMessage> decode_icp(std::span<const std::uint8_t> datagram) {
  if (datagram.size() > kIcpMaxDatagram) return make_error_code(IcpErrc::datagram_too_large);
  if (datagram.size() < kIcpHeaderSize) return make_error_code(IcpErrc::truncated);
  const std::uint8_t* p = datagram.data();
  if (p[1] != kIcpVersion) return make_error_code(IcpErrc::bad_version);
  if (get_be16(p + 2) != datagram.size()) return make_error_code(IcpErrc::length_mismatch);
  if (!is_known(p[0])) return make_error_code(IcpErrc::unknown_opcode);
  IcpMessage message;
  message.opcode = static_cast<IcpOpcode>(p[0]);
  if (message.opcode == IcpOpcode::hit_obj) return make_error_code(IcpErrc::hit_obj_unsupported);
  message.request_number = get_be32(p + 4);
  message.options = get_be32(p + 8);
  message.option_data = get_be32(p + 12);
  message.sender_address = get_be32(p + 16);
  auto payload = datagram.subspan(kIcpHeaderSize);
  if (message.opcode == IcpOpcode::query) {
    if (payload.size() < 4) return make_error_code(IcpErrc::truncated);
    message.requester_address = get_be32(payload.data());
    payload = payload.subspan(4);
  }
  const std::string_view text(reinterpret_cast<const char*>(payload.data()), payload.size());
  const std::size_t nul = text.find('\0');
  if (nul == std::string_view::npos) {
    return make_error_code(text.size() > kIcpMaxUrl ? IcpErrc::url_too_long
                                                    : IcpErrc::url_unterminated);
  }
  if (nul > kIcpMaxUrl) return make_error_code(IcpErrc::url_too_long);
  if (nul + 1 != text.size()) return make_error_code(IcpErrc::trailing_bytes);
  message.url = text.substr(0, nul);
  return message;
}

bool is_icp_reply(IcpOpcode opcode) {
  return opcode != IcpOpcode::query && opcode != IcpOpcode::hit_obj;
}

const char* to_string(IcpOpcode opcode) {
  switch (opcode) {
    case IcpOpcode::query:
      return "ICP_OP_QUERY";
    case IcpOpcode::hit:
      return "ICP_OP_HIT";
    case IcpOpcode::miss:
      return "ICP_OP_MISS";
    case IcpOpcode::err:
      return "ICP_OP_ERR";
    case IcpOpcode::secho:
      return "ICP_OP_SECHO";
    case IcpOpcode::decho:
      return "ICP_OP_DECHO";
    case IcpOpcode::miss_nofetch:
      return "ICP_OP_MISS_NOFETCH";
    case IcpOpcode::denied:
      return "ICP_OP_DENIED";
    case IcpOpcode::hit_obj:
      return "ICP_OP_HIT_OBJ";
  }
  return "ICP_OP_INVALID";
}

}  // namespace sumcache::protocol
