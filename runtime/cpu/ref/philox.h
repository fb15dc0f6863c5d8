// Philox4x32-10 (Salmon et al., "Parallel Random Numbers: As Easy as 1, 2, 3", SC11), the
// generator of the core `rng` op (spec/ops/rng.md). Shared by every backend that runs `rng`.
#pragma once

#include <array>
#include <cstdint>

namespace plumb::rt {

using PhiloxCounter = std::array<uint32_t, 4>;
using PhiloxKey = std::array<uint32_t, 2>;

inline PhiloxCounter philox4x32_10(PhiloxCounter ctr, PhiloxKey key) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // multipliers
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 10  // straight-line rounds: a loop over blocks can put blocks in SIMD lanes
#endif
  for (int round = 0; round < 10; ++round) {
    if (round > 0) {
      key[0] += kW0;
      key[1] += kW1;
    }
    const uint64_t p0 = uint64_t{kM0} * ctr[0];
    const uint64_t p1 = uint64_t{kM1} * ctr[2];
    ctr = {uint32_t(p1 >> 32) ^ ctr[1] ^ key[0], uint32_t(p1), uint32_t(p0 >> 32) ^ ctr[3] ^ key[1],
           uint32_t(p0)};
  }
  return ctr;
}

// Word (k mod 4) of the block for row-major position k of an `rng` result (spec/ops/rng.md).
inline PhiloxCounter rng_block(uint64_t block, uint64_t seed, uint64_t stream) {
  return philox4x32_10({uint32_t(block), uint32_t(block >> 32), uint32_t(stream), uint32_t(stream >> 32)},
                       {uint32_t(seed), uint32_t(seed >> 32)});
}

}  // namespace plumb::rt
