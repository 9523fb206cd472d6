#pragma once
// Error codes of the filters library, with their std::error_category.

#include <system_error>

namespace sumcache::filters {

enum class FilterErrc {
  ok = 0,
  invalid_entries,       // n must be at least 1
  invalid_fpr,           // p must lie in (0, 1)
  invalid_bits,          // m must be at least 1 and at most the cap
  invalid_hashes,        // k must lie in [1, kMaxHashes]
  size_overflow,         // the requested size does not fit in memory or in 64 bits
  parameter_mismatch,    // m, k or hash differ between two filters combined
  invalid_seed,          // the hash does not take a seed (MD5)
  unknown_hash,          // hash id not known to this build
  truncated,             // input shorter than its header says
  bad_magic,             // input is not a serialized filter
  unsupported_version,   // serialized by a format this build cannot read
  inconsistent_header,   // sizes in the header disagree with each other or the input
  too_large,             // a size in the input exceeds the reader's cap
  checksum_mismatch,     // the payload is damaged
  remove_underflow,      // a counter would go below zero: the key was never added
  invalid_growth,        // scalable filter: growth factor or tightening ratio out of range
  unsupported_kernel,    // the requested SIMD kernel needs a CPU feature this machine lacks
  size_mismatch,         // a batch's output span is not as long as its input
  change_log_overflow,   // more changes since the last mark than the log holds: push in full
  invalid_slot,          // a summary directory slot at or above SummaryDirectory::kMaxPeers
  no_summary,            // a delta for a directory slot that holds no summary
  position_out_of_range, // a bit position at or above the summary's m
  bucket_overflow,       // d-left filter: every candidate bucket of the key is full
  rank_out_of_range,     // a fingerprint delta removes a rank the set does not have
  not_ascending,         // fingerprints or ranks that must ascend do not
  invalid_sets,          // spatial filter: set count or a set index out of range
};

const std::error_category& filter_category() noexcept;

inline std::error_code make_error_code(FilterErrc e) noexcept {
  return {static_cast<int>(e), filter_category()};
}

}  // namespace sumcache::filters

template <>
struct std::is_error_code_enum<sumcache::filters::FilterErrc> : std::true_type {};
