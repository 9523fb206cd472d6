#include "protocol/full_payload.h"

#include <cstring>
#include <span>
#include <vector>

#include "filters/byte_io.h"
#include "protocol/bit_reader.h"
#include "protocol/bit_scan.h"
#include "protocol/bit_writer.h"
#include "protocol/protocol_error.h"
#include "protocol/rice_code.h"

namespace sumcache::protocol {
namespace {

std::uint64_t bytes_for(std::uint64_t bits) { return (bits + 7) / 8; }

std::string raw_bytes(const filters::BloomFilter& bits) {
  std::string out;
  out.reserve(bits.words().size() * 8);
  for (std::uint64_t word : bits.words()) {
    for (unsigned i = 0; i < 8; ++i) out.push_back(static_cast<char>(word >> (8 * i)));
  }
  out.resize(bytes_for(bits.params().m));
  return out;
}

// BloomFilter takes whole words only through its serialized form (a header,
// the words little-endian, a checksum: docs/filters.md). The receiver builds
// that form around the bits and lets deserialize() copy them in, instead of
// m set_bit() calls for a dense array.
class SerializedBits {
 public:
  static Result<SerializedBits> create(filters::BloomParams params, const filters::Hasher& hasher) {
    auto empty = filters::BloomFilter::create(params, hasher);
    if (!empty) return empty.error();
    const std::size_t words = empty->words().size();
    SerializedBits out(empty->serialize(), words);
    return out;
  }
  std::uint8_t* words_begin() { return bytes_.data() + header_; }
  std::size_t word_bytes() const { return words_ * 8; }
  Result<filters::BloomFilter> finish() {
    const auto sealed = std::span(bytes_).first(bytes_.size() - 8);
    const std::uint64_t sum = filters::checksum64(sealed);
    for (unsigned i = 0; i < 8; ++i)
      bytes_[sealed.size() + i] = static_cast<std::uint8_t>(sum >> (8 * i));
    auto filter = filters::BloomFilter::deserialize(bytes_);
    // Set bits past m are the only content deserialize() refuses here.
    if (!filter) return make_error_code(ProtocolErrc::bad_encoding);
    return filter;
  }

 private:
  SerializedBits(std::vector<std::uint8_t> bytes, std::size_t words)
      : bytes_(std::move(bytes)), words_(words), header_(bytes_.size() - 8 - words * 8) {}
  std::vector<std::uint8_t> bytes_;
  std::size_t words_;
  std::size_t header_;
};

Result<filters::BloomFilter> decode_raw(const WireHeader& h, const filters::Hasher& hasher,
                                        std::string_view payload) {
  if (h.payload_count != h.m || payload.size() != bytes_for(h.m)) {
    return make_error_code(ProtocolErrc::inconsistent_sizes);
  }
  auto out = SerializedBits::create({h.m, h.k}, hasher);
  if (!out) return out.error();
  std::memcpy(out->words_begin(), payload.data(), payload.size());
  return out->finish();
}

// Rice-coded positions, each below m; calls visit(position) for each.
template <class Visit>
std::error_code decode_positions(const WireHeader& h, std::string_view payload, Visit&& visit) {
  BitReader in(payload);
  std::uint64_t next = 0;  // the lowest position the next code may name
  for (std::uint64_t i = 0; i < h.payload_count; ++i) {
    std::uint64_t gap = 0;
    if (next >= h.m || !get_rice(in, h.rice_parameter, h.m - 1 - next, gap)) {
      return ProtocolErrc::bad_encoding;
    }
    visit(next + gap);
    next += gap + 1;
  }
  return in.only_padding_left() ? std::error_code{} : make_error_code(ProtocolErrc::bad_encoding);
}

Result<filters::BloomFilter> decode_coded(const WireHeader& h, const filters::Hasher& hasher,
                                          std::string_view payload) {
  const std::uint64_t min_bits_per_code = h.rice_parameter + 1U;
  if (h.payload_count > h.m || h.payload_count > payload.size() * 8 / min_bits_per_code) {
    return make_error_code(ProtocolErrc::inconsistent_sizes);
  }
  if ((h.flags & kFlagCodesZeros) == 0) {
    auto bits = filters::BloomFilter::create({h.m, h.k}, hasher);
    if (!bits) return bits.error();
    if (auto ec = decode_positions(h, payload, [&](std::uint64_t i) { bits->set_bit(i, true); })) {
      return ec;
    }
    return bits;
  }
  auto out = SerializedBits::create({h.m, h.k}, hasher);
  if (!out) return out.error();
  std::uint8_t* words = out->words_begin();
  std::memset(words, 0xFF, bytes_for(h.m));
  if (h.m % 8 != 0) words[h.m / 8] = static_cast<std::uint8_t>((1U << (h.m % 8)) - 1);
  const auto clear = [&](std::uint64_t i) {
    words[i / 8] &= static_cast<std::uint8_t>(~(1U << (i % 8)));
  };
  if (auto ec = decode_positions(h, payload, clear)) return ec;
  return out->finish();
}

}  // namespace

EncodedPayload encode_full_payload(const filters::BloomFilter& bits) {
  const std::uint64_t m = bits.params().m;
  const std::uint64_t ones = bits.count_set_bits();
  const bool code_zeros = m - ones < ones;
  const std::uint64_t count = code_zeros ? m - ones : ones;

  RiceSizer sizer(count == 0 ? 0.0 : static_cast<double>(m - count) / static_cast<double>(count));
  std::uint64_t next = 0;
  for_each_bit(bits.words(), m, !code_zeros, [&](std::uint64_t i) {
    sizer.add(i - next);
    next = i + 1;
  });
  EncodedPayload out;
  if (bytes_for(sizer.best_bits()) >= bytes_for(m)) {
    out.count = m;
    out.bytes = raw_bytes(bits);
    return out;
  }
  out.compression = Compression::rice_gaps;
  out.rice_parameter = static_cast<std::uint8_t>(sizer.best_parameter());
  out.flags = code_zeros ? kFlagCodesZeros : 0;
  out.count = count;
  out.bytes.reserve(bytes_for(sizer.best_bits()));
  BitWriter writer(out.bytes);
  next = 0;
  for_each_bit(bits.words(), m, !code_zeros, [&](std::uint64_t i) {
    put_rice(writer, i - next, out.rice_parameter);
    next = i + 1;
  });
  writer.finish();
  return out;
}

Result<filters::BloomFilter> decode_full_payload(const WireHeader& header,
                                                 const filters::Hasher& hasher,
                                                 std::string_view payload) {
  if (header.compression == static_cast<std::uint8_t>(Compression::raw)) {
    return decode_raw(header, hasher, payload);
  }
  return decode_coded(header, hasher, payload);
}

}  // namespace sumcache::protocol
