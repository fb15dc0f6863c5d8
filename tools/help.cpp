#include "tools/help.h"

#include <string>
#include <vector>

#include "ir/op.h"
#include "runtime/backend.h"
#include "tools/session_options.h"

// Set for this file by tools/CMakeLists.txt; the fallbacks keep a build without them honest.
#ifndef PLUMB_VERSION_STRING
#define PLUMB_VERSION_STRING "unknown"
#endif
#ifndef PLUMB_BUILD_OPTIONS
#define PLUMB_BUILD_OPTIONS "unknown"
#endif

namespace plumb::cli {

namespace {

struct Command {
  const char* name;
  const char* usage;  // the overview's short usage
  const char* what;   // and what the command does
  const char* page;   // `plumb help NAME`: usage, options, exit codes
};

constexpr const char* kErrorLine =
    "Errors are one line on stderr, `plumb: <file>: <place>: <reason> (<spec label>)`.\n";

const Command kCommands[] = {
    {"verify", "verify FILE.plumb", "load and verify a core model file",
     "usage: plumb verify FILE.plumb\n"
     "\n"
     "Loads a .plumb file (file checks, then the verifier of spec/) and prints\n"
     "`ok: N nodes, core version V`.\n"
     "\n"
     "exit codes: 0 valid, 2 invalid or unreadable (the error names the file, place and label)\n"},
    {"print", "print FILE [--full] [--data DIR]", "the readable text form of a model",
     "usage: plumb print FILE [--full]\n"
     "       plumb print MODEL.onnx --data DIR [--full]\n"
     "\n"
     "Prints the text form (spec/text_form.md) of a .plumb model, or of the core graph an .onnx\n"
     "model lowers to, with each core node's ONNX provenance.\n"
     "\n"
     "options:\n"
     "  --full       print constants of any size (default: above 256 elements elided)\n"
     "  --data DIR   lower the .onnx model specialized on DIR's inputs (input_<k>.pb or .npy), as\n"
     "               `run --data DIR` does: the graph that actually runs\n"
     "\n"
     "exit codes: 0 printed, 2 error\n"},
    {"asm", "asm TEXT -o FILE.plumb", "assemble the text form into a .plumb file",
     "usage: plumb asm TEXT -o FILE.plumb [--external-weights BYTES]\n"
     "\n"
     "Parses the text form, verifies it and saves it as a flatbuffer .plumb file.\n"
     "\n"
     "options:\n"
     "  -o FILE.plumb               the output file (required)\n"
     "  --external-weights BYTES    constants of at least BYTES bytes go to FILE.plumb.weights\n"
     "\n"
     "exit codes: 0 written, 2 error (parse, verify or write)\n"},
    {"bench", "bench MODEL --data DIR [--backend B] [--threads N] [--runs N] [--json]",
     "time a model on a backend",
     "usage: plumb bench MODEL (--data DIR | --input NAME=FILE ...) [--backend B] [--precise] [--threads N]\n"
     "                   [--max-iterations N] [--max-bytes N] [--max-memory BYTES] [--runs N] [--json]\n"
     "\n"
     "Prepares MODEL once on backend B (default ref), runs it once to warm up, then N times (default\n"
     "10), and prints median_ms=... min_ms=... max_ms=... peak_rss_mb=... (the wall time of one\n"
     "run, and the process's peak resident memory, loading included). bench/peer_ort.sh times\n"
     "onnxruntime on the same models and inputs.\n"
     "\n"
     "options:\n"
     "  --data DIR            inputs input_<k>.npy or input_<k>.pb (graph input order)\n"
     "  --input NAME=FILE     bind graph input NAME (or #k) to a .npy or .pb file; repeatable\n"
     "  --backend B           ref, cpu (oneDNN), ...\n"
     "  --precise             the precise mode: every float computed in f64\n"
     "  --threads N           threads for independent results within a node (default 1)\n"
     "  --max-iterations N    a Loop/while running more than N iterations is an error (default:\n"
     "                        unlimited)\n"
     "  --max-bytes N         largest arena and largest tensor allocated, in bytes (default 16 GiB)\n"
     "  --max-memory BYTES    the bytes the run may hold at once: arenas and every tensor allocated\n"
     "                        while running (K, M, G, T: powers of 1024); default half the machine's\n"
     "                        physical memory (sysconf). Past it: one line naming the node, exit 2\n"
     "  --runs N              timed runs after the warm-up\n"
     "  --json                one JSON object instead of the key=value line\n"
     "\n"
     "exit codes: 0 timed, 2 error\n"},
    {"run", "run MODEL [--data DIR | --input NAME=FILE ...] [--out DIR]", "run a model on its inputs",
     "usage: plumb run MODEL [--data DIR | --input NAME=FILE ...] [--out DIR] [--backend B]\n"
     "                 [--precise] [--threads N] [--max-iterations N] [--max-bytes N]\n"
     "                 [--max-memory BYTES]\n"
     "\n"
     "Runs MODEL (.plumb, or .onnx lowered specialized on the given inputs) and prints a summary\n"
     "of each output, or writes them with --out.\n"
     "\n"
     "options:\n"
     "  --data DIR            inputs input_<k>.npy or input_<k>.pb (graph input order), the ONNX\n"
     "                        test-data layout\n"
     "  --input NAME=FILE     bind graph input NAME (or #k, by position) to a .npy or .pb file;\n"
     "                        repeatable\n"
     "  --out DIR             write output_<k>.pb (output_<k>.npy without the ONNX tools)\n"
     "  --backend B           the backend (`plumb --version` lists those built); default ref\n"
     "  --precise             the precise mode: every float computed in f64\n"
     "  --threads N           threads for independent results within a node (default: the\n"
     "                        machine's cores); ref's outputs do not depend on it\n"
     "  --max-iterations N    a Loop/while running more than N iterations is an error (default:\n"
     "                        unlimited)\n"
     "  --max-bytes N         largest arena and largest tensor allocated, in bytes (default 16 GiB)\n"
     "  --max-memory BYTES    the bytes the run may hold at once: arenas and every tensor allocated\n"
     "                        while running (K, M, G, T: powers of 1024); default half the machine's\n"
     "                        physical memory (sysconf). Past it: one line naming the node, exit 2\n"
     "environment: PLUMB_VERBOSE=dispatch prints every schedule (docs/backends.md);\n"
     "             PLUMB_VERBOSE=memory the peak bytes held (the smallest --max-memory that fits)\n"
     "\n"
     "exit codes: 0 ran, 2 error\n"},
    {"convert", "convert MODEL.onnx -o MODEL.plumb", "lower and verify an ONNX model",
     "usage: plumb convert MODEL.onnx -o MODEL.plumb\n"
     "\n"
     "Lowers every node onto the core op set (shapes computed at run time where the model has\n"
     "dynamic axes), verifies the result and saves it.\n"
     "\n"
     "exit codes: 0 written, 2 error (the error names the node and the reason)\n"},
    {"check", "check MODEL --data DIR [--expected PATH] [--report F.html]", "is a converted model right",
     "usage: plumb check MODEL (--data DIR | --input NAME=FILE ...) [--expected PATH | --against REF]\n"
     "                   [--tolerance auto | --rtol R --atol A] [--report FILE.json|FILE.html ...]\n"
     "                   [--no-isolate] [--chunk-mb N] [--samples K] [--threads N] [--progress]\n"
     "                   [--backend B] [--max-memory BYTES]\n"
     "\n"
     "Runs MODEL on the reference runtime and compares its outputs and every named intermediate\n"
     "with expected values (another framework's or runtime's), checks each node on its own\n"
     "expected inputs, and names the first node that went wrong. docs/check.md is the guide:\n"
     "the folder layout, the formats and naming rules, every column and verdict.\n"
     "\n"
     "options:\n"
     "  --data DIR             inputs input_<k>.pb / .npy; also the expected values unless\n"
     "                         --expected is given (output_<k>.pb, intermediates)\n"
     "  --input NAME=FILE      bind graph input NAME (or #k) to a .npy or .pb file; repeatable\n"
     "  --against REFERENCE    a reference model (.onnx or .plumb) instead: its values, on the\n"
     "                         same inputs, of every tensor matching one of MODEL's (as `plumb diff`\n"
     "                         matches them) are the expected values\n"
     "  --expected PATH        a folder or one file of expected values: .pb (by TensorProto name;\n"
     "                         output_<k>.pb is output k), .npy (by file stem, or names.json),\n"
     "                         .npz (by entry), Polygraphy .json (--save-outputs / inputs)\n"
     "  --tolerance auto       the default: the noise bound measured on the model\n"
     "                         (docs/check-tolerance.md)\n"
     "  --rtol R --atol A      a fixed tolerance |a - e| <= A + R |e| instead\n"
     "  --report FILE          write FILE.json (for scripts) or FILE.html (one self-contained\n"
     "                         page); repeatable\n"
     "  --no-isolate           compare end to end only (no per-node evaluation on expected inputs)\n"
     "  --backend B            plumb's own f32 runs on backend B (default ref; the f64 runs of the\n"
     "                         bound stay on ref); the bound is widened by B's declared error\n"
     "                         (spec/numerics.md)\n"
     "  --chunk-mb N           compared tensors held per run, in MB (default 1074, 1 GiB): less\n"
     "                         memory, more runs\n"
     "  --samples K            stochastic runs per run set for the auto bound (default 6)\n"
     "  --threads N            threads for independent results within a node (default: the\n"
     "                         machine's cores); the verdict does not depend on it\n"
     "  --max-memory BYTES     the bytes the check may hold at once: every run's arenas and\n"
     "                         tensors, and the run outputs it keeps (K, M, G, T: powers of 1024);\n"
     "                         default half the machine's physical memory (sysconf). Past it: one\n"
     "                         line naming the run and the node, exit 2. PLUMB_VERBOSE=memory\n"
     "                         prints the peak\n"
     "  --progress             when stderr is not a terminal, one line per stage on stderr (on a\n"
     "                         terminal a progress line with the runs done and the time left is\n"
     "                         always shown)\n"
     "\n"
     "exit codes: 0 match, 1 mismatch (the first divergence is named), 2 error,\n"
     "            3 inconclusive (the evidence cannot tell noise from error; the reason is printed)\n"},
    {"diff", "diff A B [--data DIR] [--report F.json|F.html]", "what changed between two models",
     "usage: plumb diff A B [--data DIR | --input NAME=FILE ...] [--report FILE.json|FILE.html]\n"
     "                  [--threads N] [--samples K]\n"
     "\n"
     "Lowers A and B (.onnx or .plumb) onto the core, matches their nodes by structure first and\n"
     "ONNX names second, and prints one line per finding, the most significant first:\n"
     "  changed node '<ONNX node name>' (<OpType>): <what>\n"
     "structure (core nodes only in A or only in B, an op swapped), fused and split (the spans of\n"
     "core nodes that correspond, naming the ONNX nodes on each side: a BatchNormalization folded\n"
     "into a Conv, a LayerNormalization expanded), attributes (in ONNX terms when both are .onnx:\n"
     "`pads [1,1,1,1] -> [0,0,2,2]`), weights (max abs/rel difference, the slices that differ;\n"
     "`precision loss` when equal after rounding to f16 or bf16, or to int8, uint8 or int4 with a\n"
     "scale found from the data, else `real change`). Constant inputs are compared by value (a\n"
     "DequantizeLinear of an initializer is evaluated). ONNX nodes fused or split onto the same core\n"
     "nodes (Gemm against MatMul + Add) are listed last as `same computation: ...`, not a change.\n"
     "With data, B is checked with A's values of the matching tensors as expected values (the\n"
     "check's bound and isolation, as `plumb check --against`) and the first divergence is named.\n"
     "The last line is the verdict: equivalent, equivalent on the data, different, inconclusive.\n"
     "\n"
     "options:\n"
     "  --data DIR            run both on DIR's inputs (input_<k>.pb / .npy) and compare\n"
     "  --input NAME=FILE     bind graph input NAME (or #k) to a .npy or .pb file; repeatable\n"
     "  --report FILE.json    the findings, the verdict and the data comparison (check's report)\n"
     "  --report FILE.html    one self-contained page: the findings, the two models' ONNX nodes side\n"
     "                        by side, and with data check's plot and tensor table\n"
     "  --threads N           threads within a node (default: the machine's cores)\n"
     "  --samples K           stochastic runs per run set for the bound (default 6)\n"
     "\n"
     "exit codes: 0 equivalent (or equivalent on the data), 1 different, 2 error,\n"
     "            3 inconclusive on the data\n"},
    {"gen", "gen -o DIR --seed S --count N [--shard i/n]", "random valid ONNX models with ref's outputs",
     "usage: plumb gen -o DIR --seed S --count N [--shard i/n] [--ops LIST] [--opset V] [--max-nodes K]\n"
     "                 [--targets COVERAGE.json] [--other-opsets EVERY]\n"
     "\n"
     "Writes N random valid ONNX models (IR 8 at opsets up to 18) as DIR/model_<k>/model.onnx with\n"
     "test_data_set_0/input_<j>.pb and output_<j>.pb (ref's outputs): the ONNX test layout. Model k\n"
     "depends only on S and k; --shard i/n writes the models k with k mod n = i, the same names and\n"
     "bytes as the unsharded run. Ops: all 203 plumb lowers (elementwise and unary math,\n"
     "activations, matrix products, convolutions, pools, normalizations, reductions, shape, index\n"
     "and scatter ops, Resize, NonMaxSuppression, MaxRoiPool, RoiAlign, TfIdfVectorizer,\n"
     "recurrent ops, If/Loop/Scan, sequences, quantized and signal ops, MelWeightMatrix,\n"
     "StringNormalizer);\n"
     "values kept well-conditioned by construction; the 27 that exist only at other opsets than\n"
     "13 to 17 (Gelu, Mish, Attention, ... from 18 to 28; Scatter, Upsample before 13) in\n"
     "other-opset models. docs/gen.md.\n"
     "\n"
     "options:\n"
     "  --ops LIST       comma-separated ops to draw from (default: all gen builds)\n"
     "  --opset V        default-domain opset, 13 to 17 (default 13)\n"
     "  --max-nodes K    a node count drawn up to K per model (default 8); the last step may\n"
     "                   add up to 4 nodes past it (helpers: Reshape, Mul by 2^-k, BatchNorm)\n"
     "  --targets FILE   steer toward the uncovered op sequences of a coverage report (the JSON of\n"
     "                   plumb coverage --sequences N MODELS --against SET --json FILE): 60% of the\n"
     "                   steps draw an op that extends the chain into a listed 2-/3-gram, retried\n"
     "                   until its attribute classes match; still deterministic per seed and shard\n"
     "  --other-opsets E every E-th model (k mod E = E - 1; default 200, 0: none) is built at the\n"
     "                   opset of an op that 13 to 17 lack (libonnx 1.12's checker knows none past\n"
     "                   17 and rejects those from 18), holding it; with --ops, only the listed\n"
     "                   such ops, and the listed plain ops around them\n"
     "\n"
     "exit codes: 0 written, 2 error\n"},
    {"check-many", "check-many LIST [--shard i/n]", "plumb check of many model folders, JSONL",
     "usage: plumb check-many LIST [--shard i/n]\n"
     "\n"
     "LIST: one model folder a line (FOLDER/model.onnx, FOLDER/test_data_set_0/ with inputs and\n"
     "expected outputs). Prints one JSON line per folder: {\"index\":j,\"folder\",\"result\"\n"
     "(match, mismatch, inconclusive or error), and first_divergence, reason or message}. --shard\n"
     "i/n checks the lines j with j mod n = i; plumb merge joins the shards. docs/scale-out.md.\n"
     "\n"
     "exit codes: 0 every folder checked (whatever its result), 2 error\n"},
    {"merge", "merge FILE...", "merge sharded JSONL results",
     "usage: plumb merge FILE...\n"
     "\n"
     "The lines of the JSONL files (each starting {\"index\":K,) sorted by K: the output of the\n"
     "unsharded run. An index given twice or a line without one is an error. docs/scale-out.md.\n"
     "\n"
     "exit codes: 0 merged, 2 error\n"},
    {"reduce", "reduce MODEL --data DIR (--until ... | --predicate CMD) -o OUT",
     "the smallest model that still fails",
     "usage: plumb reduce MODEL --data DIR [--expected PATH] -o OUT\n"
     "                    (--until check-fails | --until backends-differ A,B | --predicate 'CMD {model} "
     "{data}')\n"
     "                    [--rtol R --atol A] [--samples K] [--threads N] [--timeout S] [--no-simplify]\n"
     "                    [--no-hint] [-v]\n"
     "\n"
     "Delta debugging (ddmin) over MODEL's nodes, then attribute and shape simplification: every\n"
     "model tried is valid (onnx checker; plumb lowers it) and kept only when it still fails. A\n"
     "removed node's readers get a new graph input fed with the value it had (or a constant of it).\n"
     "Writes OUT/model.onnx, OUT/test_data_set_0/ (its inputs and the expected outputs the test\n"
     "used) and OUT/reduce.txt, and prints one line: nodes before -> after. docs/reduce.md.\n"
     "\n"
     "failures:\n"
     "  --until check-fails          plumb check against DIR's expected values exits 1. Cut values\n"
     "                               come from the expected values only (give every intermediate,\n"
     "                               e.g. onnxruntime's node outputs, to cut anywhere)\n"
     "  --until backends-differ A,B  the two backends' outputs differ: beyond the auto bound of\n"
     "                               either, or --rtol/--atol\n"
     "  --predicate 'CMD'            /bin/sh -c CMD, {model} and {data} replaced: exit 0 = still\n"
     "                               fails. Cut values are ref's run of MODEL\n"
     "\n"
     "options:\n"
     "  --data DIR           inputs input_<k>.pb / .npy (and the expected values)\n"
     "  --expected PATH      expected values elsewhere (check's layout: output_<k>.pb, tensors by name)\n"
     "  -o OUT               the output folder\n"
     "  --rtol R --atol A    a fixed tolerance instead of the auto bound\n"
     "  --samples K          stochastic runs per run set for the auto bound (default 6)\n"
     "  --threads N          threads within a node (default 1)\n"
     "  --timeout S          seconds per run of the predicate command (default 300)\n"
     "  --no-simplify        stop after ddmin\n"
     "  --no-hint            check-fails: start ddmin from the whole model, not check's first divergence\n"
     "  -v                   one line per step on stderr\n"
     "\n"
     "exit codes: 0 reduced, 2 error (also: the failure is not there on MODEL as given)\n"},
    {"conformance", "conformance SUITE_DIR | --core DIR", "run a conformance suite",
     "usage: plumb conformance SUITE_DIR [--backend B] [--filter REGEX] [--csv FILE] [-j N]\n"
     "                         [--threads N] [--timeout S] [--known-failures FILE] [--digest FILE] [-v]\n"
     "       plumb conformance --core DIR [--backend B] [--filter REGEX] [--csv FILE] [-j N]\n"
     "                         [--threads N] [--cells FILE] [--strict] [--digest FILE]\n"
     "\n"
     "SUITE_DIR: an ONNX backend node suite (model.onnx + test_data_set_*), each test in its own\n"
     "process, compared with the ONNX defaults (rtol 1e-3, atol 1e-7). --core DIR: the core\n"
     "conformance vectors (spec/conformance.md), compared by each op's tolerance class.\n"
     "\n"
     "options:\n"
     "  --backend B             the backend to test (default ref)\n"
     "  --filter REGEX          only the tests whose name matches\n"
     "  --csv FILE              one line per test with its result\n"
     "  -j N                    N tests at a time\n"
     "  --threads N             threads within each test's nodes (default 1)\n"
     "  --timeout S             seconds per test before it counts as failed (ONNX suites)\n"
     "  --known-failures FILE   listed failing tests count as skipped; a listed test that passes\n"
     "                          fails the run (ONNX suites)\n"
     "  --digest FILE           `<test> <digest>` of every output: equal files = byte-identical\n"
     "  --cells FILE            every op x dtype cell listed must be covered by a passing case\n"
     "  --strict                compare every output bit for bit (core vectors)\n"
     "  -v                      print every test (ONNX suites)\n"
     "\n"
     "exit codes: 0 nothing failed, 1 a test failed (or a cell is missing), 2 error\n"},
    {"coverage", "coverage [SUITE_DIR] | --sequences N MODELS...",
     "ONNX ops x opsets lowered; op n-gram coverage",
     "usage: plumb coverage [SUITE_DIR]\n"
     "       plumb coverage --sequences N MODELS... [--against SUITE_OR_MODELS]... [--json FILE]\n"
     "                      [--html FILE] [--top K]\n"
     "\n"
     "Prints spec/onnx_coverage.md: every ONNX operator x since-version and the rule that lowers\n"
     "it. With SUITE_DIR, the suite's single-node models add versions newer than libonnx knows.\n"
     "\n"
     "--sequences N: the op n-grams (n = 1..N: paths of n nodes along data edges, subgraphs\n"
     "included, each node labelled with its op type and attribute classes: dtype, axis sign,\n"
     "broadcast, ...) of MODELS (.onnx files, or folders of them) and the fraction that the\n"
     "--against set also has; docs/coverage-sequences.md defines them and the JSON.\n"
     "\n"
     "options:\n"
     "  --against PATH   the covering set (.onnx files or folders, e.g. a node suite); repeatable\n"
     "  --json FILE      the counts and every uncovered n-gram (what plumb gen --targets reads)\n"
     "  --html FILE      the same as one self-contained page\n"
     "  --top K          uncovered n-grams printed (default 20)\n"
     "\n"
     "exit codes: 0 printed, 2 error\n"},
    {"help", "help [COMMAND]", "this overview, or one command's options",
     "usage: plumb help [COMMAND]   (also: plumb COMMAND --help, plumb --help, plumb --version)\n"
     "\n"
     "exit codes: 0, or 2 for an unknown command\n"},
};

const Command* find(const std::string& name) {
  for (const Command& c : kCommands)
    if (name == c.name) return &c;
  return nullptr;
}

// Backend names in the table of this build, built or not (runtime/backends.def, generated).
std::vector<std::string> backends_not_built() {
  std::vector<std::string> names;
#define PLUMB_BACKEND(name)
#define PLUMB_BACKEND_NOT_BUILT(name) names.emplace_back(#name);
#include "runtime/backends.def"
#undef PLUMB_BACKEND
#undef PLUMB_BACKEND_NOT_BUILT
  return names;
}

}  // namespace

void print_overview(std::FILE* out) {
  std::fputs("usage: plumb <command> [args]     (plumb help COMMAND: its options and exit codes)\n\n", out);
  std::fputs("commands:\n", out);
  for (const Command& c : kCommands) {
    if (std::string(c.usage).size() <= 38)
      std::fprintf(out, "  %-38s %s\n", c.usage, c.what);
    else
      std::fprintf(out, "  %s\n  %-38s %s\n", c.usage, "", c.what);
  }
  std::fputs("\noptions: --help (this text), --version (version, build options, backends)\n", out);
  std::fputs(kErrorLine, out);
  std::fputs(
      "Exit codes: 0 success, 1 mismatch (check, conformance, diff), 2 error, 3 inconclusive (check).\n",
      out);
}

bool is_command(const std::string& command) { return find(command) != nullptr; }

bool print_command_help(const std::string& command, std::FILE* out) {
  const Command* c = find(command);
  if (!c) return false;
  std::fputs(c->page, out);
  std::fputs(kErrorLine, out);
  return true;
}

void print_version(std::FILE* out) {
  std::fprintf(out, "plumb %s\n", PLUMB_VERSION_STRING);
  std::fprintf(out, "core op set version %u (spec/versioning.md)\n", static_cast<unsigned>(ir::kCoreVersion));
  std::fprintf(out, "build: %s\n", PLUMB_BUILD_OPTIONS);
  std::string built, missing;
  for (const std::string& n : rt::backend_names(cli_backends())) built += (built.empty() ? "" : ", ") + n;
  for (const std::string& n : backends_not_built()) missing += (missing.empty() ? "" : ", ") + n;
  std::fprintf(out, "backends: %s%s\n", built.c_str(),
               missing.empty() ? "" : (" (not built: " + missing + ")").c_str());
}

}  // namespace plumb::cli
