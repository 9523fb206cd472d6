#pragma once
// A property a fuzz target checks: when it fails, libFuzzer sees the abort as a
// crash and saves the input that caused it.

#include <cstdio>
#include <cstdlib>

#define SUMCACHE_FUZZ_CHECK(condition)                                                      \
  do {                                                                                      \
    if (!(condition)) {                                                                     \
      std::fprintf(stderr, "%s:%d: property failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                         \
    }                                                                                       \
  } while (false)
