#pragma once
// The bytes the test origin serves for /obj/...: a function of the request path
// and a seed only, so a test computes what it should receive and compares.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace sumcache::testing {

// Names one body: the same (path, seed) gives the same key in every process.
std::uint64_t body_key(std::string_view path, std::string_view seed);

// Writes bytes [offset, offset + out.size()) of the body named `key`. Random
// access, so the origin streams a large body piece by piece without holding it.
// The bytes are printable ASCII, so a mismatch reads well in a failure message.
void fill_body(std::uint64_t key, std::uint64_t offset, std::span<char> out);

// The whole body of `size` bytes for (path, seed).
std::string deterministic_body(std::string_view path, std::string_view seed, std::uint64_t size);

}  // namespace sumcache::testing
