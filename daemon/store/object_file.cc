#include "daemon/store/object_file.h"

#include "daemon/store/store_error.h"
#include "filters/byte_io.h"

namespace sumcache::daemon {
namespace {

using filters::put_le;

// "SCOB" in file order.
constexpr std::uint32_t kMagic = 0x424F4353;

std::uint32_t header_bytes_for(const StoredObject& object) {
  return static_cast<std::uint32_t>(kPreludeBytes + object.key.size() + object.variant.size() +
                                    object.meta.size() + object.head.size() + kChecksumBytes);
}

void put_bytes(std::vector<std::uint8_t>& out, std::string_view bytes) {
  out.insert(out.end(), bytes.begin(), bytes.end());
}

std::string take_string(std::span<const std::uint8_t> bytes, std::size_t& pos, std::size_t n) {
  std::string s(reinterpret_cast<const char*>(bytes.data() + pos), n);
  pos += n;
  return s;
}

}  // namespace

std::error_code check_field_caps(const StoredObject& object) {
  if (object.key.size() > kMaxKeyBytes || object.variant.size() > kMaxVariantBytes ||
      object.meta.size() > kMaxMetaBytes || object.head.size() > kMaxHeadBytes) {
    return StoreErrc::field_too_large;
  }
  return {};
}

std::uint64_t file_bytes_for(const StoredObject& object) {
  return header_bytes_for(object) + object.body_size + kChecksumBytes;
}

std::vector<std::uint8_t> encode_header(const StoredObject& object, const filters::Hasher& hasher,
                                        std::uint64_t sequence) {
  const std::uint32_t header_bytes = header_bytes_for(object);
  std::vector<std::uint8_t> out;
  out.reserve(header_bytes);
  put_le(out, kMagic);
  put_le(out, kObjectFileVersion);
  put_le(out, std::uint16_t{0});  // flags: none defined
  put_le(out, header_bytes);
  put_le(out, static_cast<std::uint32_t>(object.key.size()));
  put_le(out, static_cast<std::uint32_t>(object.variant.size()));
  put_le(out, static_cast<std::uint32_t>(object.meta.size()));
  put_le(out, static_cast<std::uint32_t>(object.head.size()));
  put_le(out, static_cast<std::uint8_t>(hasher.id()));
  for (int i = 0; i < 3; ++i) put_le(out, std::uint8_t{0});
  put_le(out, hasher.seed());
  put_le(out, object.hash.h1);
  put_le(out, object.hash.h2);
  put_le(out, object.body_size);
  put_le(out, sequence);
  put_bytes(out, object.key);
  put_bytes(out, object.variant);
  put_bytes(out, object.meta);
  put_bytes(out, object.head);
  put_le(out, filters::checksum64(out));
  return out;
}

Result<Prelude> decode_prelude(std::span<const std::uint8_t> bytes, std::uint64_t file_bytes,
                               std::uint64_t max_body_bytes, const filters::Hasher& hasher) {
  if (bytes.size() < kPreludeBytes) return make_error_code(StoreErrc::truncated);
  filters::ByteReader in(bytes);
  if (in.le<std::uint32_t>() != kMagic) return make_error_code(StoreErrc::bad_magic);
  const auto version = in.le<std::uint16_t>();
  const auto flags = in.le<std::uint16_t>();
  if (version != kObjectFileVersion || flags != 0) {
    return make_error_code(StoreErrc::unsupported_version);
  }
  Prelude p;
  p.header_bytes = in.le<std::uint32_t>();
  p.key_bytes = in.le<std::uint32_t>();
  p.variant_bytes = in.le<std::uint32_t>();
  p.meta_bytes = in.le<std::uint32_t>();
  p.head_bytes = in.le<std::uint32_t>();
  const auto hash_id = in.le<std::uint8_t>();
  const auto reserved_low = in.le<std::uint16_t>();
  const auto reserved_high = in.le<std::uint8_t>();
  const auto seed = in.le<std::uint64_t>();
  p.key_hash = {in.le<std::uint64_t>(), in.le<std::uint64_t>()};
  p.body_bytes = in.le<std::uint64_t>();
  p.sequence = in.le<std::uint64_t>();
  if (reserved_low != 0 || reserved_high != 0)
    return make_error_code(StoreErrc::inconsistent_header);
  if (hash_id != static_cast<std::uint8_t>(hasher.id()) || seed != hasher.seed()) {
    return make_error_code(StoreErrc::hasher_mismatch);
  }
  // Each field is capped first, so the sum below cannot overflow.
  if (p.key_bytes == 0 || p.key_bytes > kMaxKeyBytes || p.variant_bytes > kMaxVariantBytes ||
      p.meta_bytes > kMaxMetaBytes || p.head_bytes > kMaxHeadBytes) {
    return make_error_code(StoreErrc::field_too_large);
  }
  const std::uint64_t expected_header = std::uint64_t{kPreludeBytes} + p.key_bytes +
                                        p.variant_bytes + p.meta_bytes + p.head_bytes +
                                        kChecksumBytes;
  if (p.header_bytes != expected_header) return make_error_code(StoreErrc::inconsistent_header);
  if (p.body_bytes > max_body_bytes) return make_error_code(StoreErrc::too_large);
  if (file_bytes < p.file_bytes()) return make_error_code(StoreErrc::truncated);
  if (file_bytes > p.file_bytes()) return make_error_code(StoreErrc::inconsistent_header);
  return p;
}

Result<ObjectHeader> decode_header(const Prelude& prelude, std::span<const std::uint8_t> header,
                                   const filters::Hasher& hasher) {
  if (header.size() != prelude.header_bytes) return make_error_code(StoreErrc::truncated);
  const std::size_t body_end = header.size() - kChecksumBytes;
  filters::ByteReader trailer(header.subspan(body_end));
  if (trailer.le<std::uint64_t>() != filters::checksum64(header.first(body_end))) {
    return make_error_code(StoreErrc::checksum_mismatch);
  }
  ObjectHeader h;
  h.prelude = prelude;
  std::size_t pos = kPreludeBytes;
  h.key = take_string(header, pos, prelude.key_bytes);
  h.variant = take_string(header, pos, prelude.variant_bytes);
  h.meta = take_string(header, pos, prelude.meta_bytes);
  h.head = take_string(header, pos, prelude.head_bytes);
  if (hasher(h.key) != prelude.key_hash) return make_error_code(StoreErrc::inconsistent_header);
  return h;
}

}  // namespace sumcache::daemon
