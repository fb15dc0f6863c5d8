// A digest of run-time values, so that two runs (two builds, two backends) can be compared byte
// for byte without keeping their outputs: `plumb conformance ... --digest FILE` writes one line
// per test, and `diff` of two such files shows every test whose outputs differ in any bit.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/value.h"

namespace plumb::cli {

// Folds `v` into the FNV-1a 64-bit hash `h`: its kind, dtype, shape and every byte (strings by
// length and contents; containers element by element).
uint64_t digest_value(const rt::RtValue& v, uint64_t h);

constexpr uint64_t kDigestSeed = 14695981039346656037ull;

// 16 hex digits.
std::string digest_hex(uint64_t h);

}  // namespace plumb::cli
