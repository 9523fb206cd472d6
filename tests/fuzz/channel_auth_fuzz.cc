// Sumcache-Channel-Auth and the replay window (protocol/channel_auth.h,
// protocol/replay_window.h). Properties:
// - the grammar has one spelling: a value that parses is rebuilt byte for byte
//   from its fields, and one that verifies is exactly what sign makes of them;
// - round trip: fields drawn from the input, signed, parse back to themselves
//   and verify; the value with any one byte changed does not verify;
// - an answer signed for one nonce never verifies for another;
// - the replay window, fed (nonce, t, now) steps from the input, never admits
//   one (nonce, t) twice, never admits a t at or below its floor, whose rise
//   is monotonic, and holds at most its capacity.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "protocol/channel_auth.h"
#include "protocol/replay_window.h"
#include "tests/fuzz/fuzz_check.h"

using namespace sumcache::protocol;

namespace {

constexpr std::string_view kSecret = "fuzz-cluster-secret-0123456789";
constexpr std::string_view kPath = "/sumcache/v1/invalidations";

class Input {
 public:
  Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  std::uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
  std::uint64_t number(int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | byte();
    return v;
  }
  std::string id() {
    static constexpr char kChars[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
    const std::size_t n = 1 + byte() % 64;
    std::string out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(kChars[byte() % 65]);
    return out;
  }
  std::string nonce() {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out;
    for (std::size_t i = 0; i < kNonceHexBytes; ++i) out.push_back(kHex[byte() % 16]);
    return out;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

void check_raw(std::string_view value) {
  if (auto f = parse_channel_request(value)) {
    const std::string rebuilt = "node=" + std::string(f->node) + "; to=" + std::string(f->to) +
                                "; t=" + std::to_string(f->time) + "; n=" + std::string(f->nonce) +
                                "; len=" + std::to_string(f->length) +
                                "; mac=" + std::string(f->mac_hex);
    SUMCACHE_FUZZ_CHECK(rebuilt == value);
    const ChannelRequestFacts facts{"POST", kPath, f->to, f->length, f->time};
    if (verify_channel_request(value, facts, kSecret)) {
      SUMCACHE_FUZZ_CHECK(sign_channel_request("POST", kPath, *f, kSecret) == value);
    }
  }
  if (auto a = parse_channel_answer(value)) {
    const std::string rebuilt =
        "node=" + std::string(a->node) + "; to=" + std::string(a->to) +
        "; n=" + std::string(a->nonce) + "; status=" + std::to_string(a->status) +
        "; len=" + std::to_string(a->length) + "; mac=" + std::string(a->mac_hex);
    SUMCACHE_FUZZ_CHECK(rebuilt == value);
  }
}

void check_round_trip(Input& in) {
  const std::string node = in.id();
  const std::string to = in.id();
  const std::string nonce = in.nonce();
  const auto time = static_cast<std::int64_t>(in.number(5) % 1'000'000'000'000);
  const std::uint64_t length = in.number(4);
  const ChannelRequestAuth fields{node, to, time, nonce, length, {}};
  const std::string value = sign_channel_request("POST", kPath, fields, kSecret);
  SUMCACHE_FUZZ_CHECK(!value.empty());
  const auto parsed = parse_channel_request(value);
  SUMCACHE_FUZZ_CHECK(parsed.ok());
  SUMCACHE_FUZZ_CHECK(parsed->node == node && parsed->to == to && parsed->time == time &&
                      parsed->nonce == nonce && parsed->length == length);
  const ChannelRequestFacts facts{"POST", kPath, to, length, time};
  SUMCACHE_FUZZ_CHECK(verify_channel_request(value, facts, kSecret).ok());
  std::string changed = value;
  const std::size_t at = in.number(2) % changed.size();
  changed[at] = static_cast<char>(changed[at] ^ (1 + in.byte() % 255));
  SUMCACHE_FUZZ_CHECK(!verify_channel_request(changed, facts, kSecret).ok());

  const auto status = static_cast<unsigned>(100 + in.number(2) % 900);
  const ChannelAnswerAuth answer{to, node, nonce, status, length, {}};
  const std::string signed_answer = sign_channel_answer(answer, kSecret);
  SUMCACHE_FUZZ_CHECK(
      verify_channel_answer(signed_answer, {to, node, nonce, status, length}, kSecret).ok());
  const std::string other = in.nonce();
  if (other != nonce) {
    SUMCACHE_FUZZ_CHECK(
        !verify_channel_answer(signed_answer, {to, node, other, status, length}, kSecret).ok());
  }
}

void check_replay_window(Input& in, std::size_t steps) {
  ReplayWindow window(1 + in.byte() % 16);
  std::set<std::pair<std::string, std::int64_t>> admitted;
  std::int64_t now = 1'700'000'000;
  std::int64_t floor = window.floor();
  for (std::size_t i = 0; i < steps; ++i) {
    const std::string nonce(kNonceHexBytes, "0123456789abcdef"[in.byte() % 16]);
    now += static_cast<std::int8_t>(in.byte()) / 8;  // the clock, back or forth
    const std::int64_t time = now + static_cast<std::int8_t>(in.byte()) % 40;
    const std::int64_t floor_before = window.floor();
    const ChannelAuthErrc verdict = window.admit(nonce, time, now);
    SUMCACHE_FUZZ_CHECK(window.floor() >= floor);
    floor = window.floor();
    SUMCACHE_FUZZ_CHECK(window.size() <= 16);
    if (verdict == ChannelAuthErrc::ok) {
      SUMCACHE_FUZZ_CHECK(time > floor_before && time > window.floor());
      SUMCACHE_FUZZ_CHECK(admitted.emplace(nonce, time).second);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  check_raw(std::string_view(reinterpret_cast<const char*>(data), size));
  Input in(data, size);
  check_round_trip(in);
  // 64 steps reach every state of a window of at most 16 entries many times over.
  check_replay_window(in, std::min<std::size_t>(size / 3, 64));
  return 0;
}
