#include "protocol/bit_writer.h"

namespace sumcache::protocol {

void BitWriter::flush_word() {
  char bytes[8];
  for (unsigned i = 0; i < 8; ++i) bytes[i] = static_cast<char>(buffer_ >> (8 * i));
  out_.append(bytes, 8);
}

void BitWriter::finish() {
  for (unsigned i = 0; i < used_; i += 8) out_.push_back(static_cast<char>(buffer_ >> i));
  buffer_ = 0;
  used_ = 0;
}

}  // namespace sumcache::protocol
