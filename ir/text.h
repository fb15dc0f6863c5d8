// The text form of a core graph (spec/text_form.md): `plumb print` writes it, `plumb asm` and the
// spec examples read it. print(parse(print(g))) == print(g) for every graph print accepts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/graph.h"
#include "ir/status.h"

namespace plumb::ir {

struct PrintOptions {
  // Constants with more elements than this print as `dense<T>[...]` (not parseable); 0 = print
  // every constant in full (the default: the text then round-trips).
  uint64_t elide_above = 0;
};

std::string print_graph(const Graph& g, const PrintOptions& options = {});
std::string print_type(const Type& t);  // "f32[2,?]", "seq<f32[*]>", with quoted non-identifier dim names

// Parses the text form. Errors are InvalidModel Statuses whose message starts `<line>:<col>: `.
// The graph is NOT verified here: callers run ir::verify.
Expected<Graph> parse_graph(std::string_view text);

}  // namespace plumb::ir
