// The summary message decoder (protocol/decode.h) on a message a peer holding the
// cluster secret could send (summary_input.h: the input is signed). Properties: a
// decoded message meets the encoder's preconditions, and encoding it again gives a
// message that decodes to the same content (the coding may differ: the encoder
// picks raw or Rice, whichever is smaller).

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "protocol/encode.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/fuzz/summary_input.h"

using namespace sumcache::protocol;
namespace fuzz = sumcache::fuzz;

namespace {

bool same_info(const SummaryInfo& a, const SummaryInfo& b) {
  return a.node_id == b.node_id && a.epoch == b.epoch && a.sequence == b.sequence &&
         a.params == b.params && a.hasher == b.hasher && a.entries == b.entries;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string message =
      fuzz::signed_message(std::string_view(reinterpret_cast<const char*>(data), size));
  const auto decoded = decode(message, fuzz::secret_for, fuzz::decode_limits());
  if (!decoded) return 0;
  const SummaryMessage& m = *decoded;
  SUMCACHE_FUZZ_CHECK(m.wire_bytes == message.size());
  std::string again;
  if (m.kind == MessageKind::full) {
    SUMCACHE_FUZZ_CHECK(!check_summary(m.info));
    SUMCACHE_FUZZ_CHECK(m.bits && m.bits->params() == m.info.params);
    again = encode_full(m.info, *m.bits, fuzz::kSecret).value();
  } else {
    SUMCACHE_FUZZ_CHECK(!check_delta(m.info, m.base_sequence, m.changes));
    again = encode_delta(m.info, m.base_sequence, m.changes, fuzz::kSecret).value();
  }
  SUMCACHE_FUZZ_CHECK(!again.empty());
  const auto round = decode(again, fuzz::secret_for, fuzz::decode_limits());
  SUMCACHE_FUZZ_CHECK(round.ok());
  SUMCACHE_FUZZ_CHECK(round->kind == m.kind && same_info(round->info, m.info));
  SUMCACHE_FUZZ_CHECK(round->base_sequence == m.base_sequence);
  SUMCACHE_FUZZ_CHECK(round->bits == m.bits && round->changes == m.changes);
  return 0;
}
