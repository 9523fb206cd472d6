#include "filters/filter_error.h"

#include <string>

namespace sumcache::filters {
namespace {

class FilterCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "sumcache.filters"; }

  std::string message(int value) const override {
    switch (static_cast<FilterErrc>(value)) {
      case FilterErrc::ok: return "success";
      case FilterErrc::invalid_entries: return "expected entries must be at least 1";
      case FilterErrc::invalid_fpr: return "false positive rate must lie strictly between 0 and 1";
      case FilterErrc::invalid_bits: return "bit count must be at least 1 and within the cap";
      case FilterErrc::invalid_hashes: return "hash count must lie between 1 and 32";
      case FilterErrc::size_overflow: return "requested filter size overflows";
      case FilterErrc::parameter_mismatch: return "filters differ in bit count, hash count or hash";
      case FilterErrc::invalid_seed: return "this hash takes no seed";
      case FilterErrc::unknown_hash: return "unknown hash id";
      case FilterErrc::truncated: return "input is truncated";
      case FilterErrc::bad_magic: return "input is not a serialized filter (bad magic)";
      case FilterErrc::unsupported_version: return "unsupported format version";
      case FilterErrc::inconsistent_header: return "header fields are inconsistent";
      case FilterErrc::too_large: return "size in input exceeds the configured cap";
      case FilterErrc::checksum_mismatch: return "checksum mismatch: input is damaged";
      case FilterErrc::remove_underflow: return "remove refused: a counter would go below zero";
      case FilterErrc::invalid_growth: return "growth factor must be >= 2 and ratio in (0, 1)";
      case FilterErrc::unsupported_kernel: return "this CPU lacks the feature the kernel needs";
      case FilterErrc::size_mismatch: return "batch output and input differ in length";
      case FilterErrc::change_log_overflow:
        return "changes since the last mark are not logged: push the full bit view";
      case FilterErrc::invalid_slot: return "directory slot out of range";
      case FilterErrc::no_summary: return "directory slot holds no summary";
      case FilterErrc::position_out_of_range: return "bit position beyond the summary's size";
      case FilterErrc::bucket_overflow: return "every candidate bucket is full";
      case FilterErrc::rank_out_of_range: return "rank beyond the fingerprint set's size";
      case FilterErrc::not_ascending: return "fingerprints or ranks out of ascending order";
      case FilterErrc::invalid_sets: return "set count or set index out of range";
    }
    return "unknown filters error";
  }
};

}  // namespace

const std::error_category& filter_category() noexcept {
  static const FilterCategory category;
  return category;
}

}  // namespace sumcache::filters
