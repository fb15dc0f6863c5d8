// Philox4x32-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC11), the
// generator of the core `rng` op (spec/ops/rng.md). Shared by every backend that runs `rng`.
#pragma once

#include <array>
#include <cstdint>

namespace plumb::rt {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

// The words of Philox4x32-10 for counter (c0..c3) and key (k0, k1), into out[0..3]. Scalars and
// a store through a pointer, no array: a loop over blocks then puts blocks in SIMD lanes (GCC does
// not vectorize a loop that stores into a local array).
inline void philox4x32_10_into(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3, uint32_t k0, uint32_t k1,
                               uint32_t* out) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // multipliers
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 10  // straight-line rounds
#endif
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      k0 += kW0;
      k1 += kW1;
    }
    const uint64_t p0 = uint64_t{kM0} * c0;
    const uint64_t p1 = uint64_t{kM1} * c2;
    const uint32_t n0 = uint32_t(p1 >> 32) ^ c1 ^ k0, n2 = uint32_t(p0 >> 32) ^ c3 ^ k1;
    c1 = uint32_t(p1);
    c3 = uint32_t(p0);
    c0 = n0;
    c2 = n2;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

inline PhiloxCounter philox4x32_10(PhiloxCounter ctr, PhiloxKey key) {
  PhiloxCounter out;
  philox4x32_10_into(ctr[0], ctr[1], ctr[2], ctr[3], key[0], key[1], out.data());
  return out;
}

// Words 4 * block .. 4 * block + 3 of an `rng` result (spec/ops/rng.md), into out[0..3].
inline void rng_block_into(uint64_t block, uint64_t seed, uint64_t stream, uint32_t* out) {
  philox4x32_10_into(uint32_t(block), uint32_t(block >> 32), uint32_t(stream), uint32_t(stream >> 32),
                     uint32_t(seed), uint32_t(seed >> 32), out);
}

// Word (k mod 4) of the block for row-major position k of an `rng` result (spec/ops/rng.md).
inline PhiloxCounter rng_block(uint64_t block, uint64_t seed, uint64_t stream) {
  PhiloxCounter out;
  rng_block_into(block, seed, stream, out.data());
  return out;
}

}  // namespace plumb::rt
