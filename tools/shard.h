// --shard i/n, shared by the commands that split a run (plumb gen, plumb check-many): item k of
// the unsharded run belongs to shard k mod n (docs/scale-out.md).
#pragma once

#include <cstdint>
#include <string>

#include "ir/status.h"

namespace plumb::cli {

// "i/n" with 0 <= i < n <= 2^20; errors name --shard.
Status parse_shard(const std::string& text, uint64_t& index, uint64_t& count);
// A decimal whole number in [lo, hi]; errors name `flag`.
Status parse_u64(const std::string& flag, const std::string& text, uint64_t lo, uint64_t hi, uint64_t& out);

}  // namespace plumb::cli
