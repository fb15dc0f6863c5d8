// The `cpu` backend (issue 16): the spans runtime/cpu/onednn/fusion.h matches, each an island of
// one or more units, each unit one oneDNN primitive (Debian's libdnnl 2.6: primitives and
// post-ops) with its post-ops, the island's inner values kept in oneDNN's layouts (island.h);
// everything else runs on ref through the executor's fallback. Host memory: no copies at span
// borders. Files: primitive.h (one unit's primitive), island.h (a span's run), ref_path.h (its way
// back to ref), scan.h (the run-time passes).
//
// Phases (runtime/backend.h): partition = fusion.h's match; prepare = per claim, when the graph's
// types are static, the primitive is created and its constant weights reordered into the layout
// it chose (format_tag::any) once; compile = the same for a plan whose shapes differ (cached per
// shape), or a decline with the reason (a dynamic or empty shape, an input the span does not
// expect, the planner folding the anchor); run = set the buffers' handles and execute: no
// allocation (the primitive's scratchpad and the blocked activations live in the span's scratch).
//
// Numerics (spec/numerics.md "Backend cpu"): the dot products are summed in oneDNN's order with
// FMA (within DotProduct); bias and sum are post-ops (f32 adds on the accumulator), relu/clip a
// pass over the result with ref's max/min (oneDNN's eltwise relu/clip turn NaN into 0). Only the
// direct convolution algorithm is asked for (no Winograd).
// Threads: oneDNN's OpenMP threads.
#pragma once

#include <memory>

#include "runtime/backend.h"

namespace plumb::rt::cpu {

std::unique_ptr<Backend> make_backend();

}  // namespace plumb::rt::cpu
