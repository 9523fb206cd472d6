#pragma once
// A cached response as the store keeps it: immutable once published, shared
// between the store and the sessions that send it.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "filters/hashing.h"

namespace sumcache::daemon {

struct StoredObject {
  std::string key;        // primary cache key: the normalized URL
  std::string variant;    // secondary key from Vary; "" when the response has none
  filters::Hash128 hash;  // Store::hash_key(key), computed once; feeds index and filter
  std::string meta;       // opaque to the store: the proxy's freshness facts and times
  std::string head;       // the response head bytes as sent to clients
  std::shared_ptr<const std::string> body;  // null when the body is only on disk
  std::uint64_t body_size = 0;
};

using ObjectPtr = std::shared_ptr<const StoredObject>;

// What an object costs a tier's memory budget and what max_object_bytes caps.
inline std::uint64_t object_bytes(const StoredObject& object) {
  return object.key.size() + object.variant.size() + object.meta.size() + object.head.size() +
         object.body_size;
}

// Variants are told apart by a 64-bit hash; a nonempty variant's is odd so
// that it never equals the 0 of "no variant".
inline std::uint64_t variant_hash(const filters::Hasher& hasher, std::string_view variant) {
  return variant.empty() ? 0 : (hasher(variant).h1 | 1U);
}

}  // namespace sumcache::daemon
