// The plumb CLI commands (DESIGN.md §7). main.cpp parses the command word and calls one of these;
// each lives in tools/cmd_<name>.cpp. A command returns the process exit code: 0 success,
// 1 mismatch (check/conformance/diff), 2 error (after printing ONE line
// `plumb: <file>: <place>: <reason> (<label>)` to stderr through report_error).
#pragma once

#include <string>
#include <vector>

#include "ir/status.h"

namespace plumb::cli {

using Args = std::vector<std::string>;  // the arguments after the command word

int cmd_verify(const Args& args);       // plumb verify FILE.plumb
int cmd_print(const Args& args);        // plumb print FILE (.plumb or .onnx)
int cmd_asm(const Args& args);          // plumb asm TEXT -o FILE.plumb
int cmd_run(const Args& args);          // plumb run MODEL [--data DIR | --input NAME=FILE ...] [--out DIR]
int cmd_convert(const Args& args);      // plumb convert MODEL.onnx -o MODEL.plumb
int cmd_check(const Args& args);        // plumb check MODEL --data DIR ...
int cmd_conformance(const Args& args);  // plumb conformance SUITE_DIR ... (the ONNX node suites)
int cmd_core_conformance(const Args& args);  // plumb conformance --core DIR ... (spec/vectors)
int cmd_coverage(const Args& args);          // plumb coverage [SUITE_DIR]
int cmd_bench(const Args& args);             // plumb bench MODEL --data DIR [--backend B] [--runs N]
int cmd_diff(const Args& args);              // plumb diff A B [--data DIR] [--report FILE.json]

// Issue 22's bug hunting (hunt/): op-sequence coverage and reduction.
int cmd_coverage_sequences(const Args& args);  // plumb coverage --sequences N MODELS... [--against ...]
int cmd_gen(const Args& args);                 // plumb gen -o DIR --seed S --count N [--shard i/n]
int cmd_check_many(const Args& args);          // plumb check-many LIST [--shard i/n]: JSONL results
int cmd_merge(const Args& args);               // plumb merge FILE...: sharded JSONL results, merged
int cmd_reduce(const Args& args);  // plumb reduce MODEL --data DIR (--until ... | --predicate CMD) -o OUT

// Prints `plumb: <file>: <place>: <reason> (<label>)` (empty parts left out) and returns 2.
int report_error(const std::string& file, const Status& s);

}  // namespace plumb::cli
