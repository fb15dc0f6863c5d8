#!/usr/bin/env bash
# plumb coverage prints spec/onnx_coverage.md: with the newest ONNX backend node suite it is the
# checked-in page byte for byte; without a suite it still lists libonnx 1.12's ops and says that
# no suite was read. Skipped (77) when the build has no ONNX tools (the tiny configuration).
# Usage: coverage.sh PATH/TO/plumb SOURCE_DIR
set -u
plumb="$1"
src="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$plumb" coverage > "$tmp/no_suite.md" 2> "$tmp/err"
rc=$?
if grep -q "not implemented in this build" "$tmp/err"; then echo "no ONNX tools in this build: skipped"; exit 77; fi
[[ $rc -eq 0 ]] || fail "coverage exit $rc: $(cat "$tmp/err")"
grep -q '^| Relu | 14 | lowered |' "$tmp/no_suite.md" || fail "no Relu-14 row"
grep -q 'no ONNX backend node suite was read' "$tmp/no_suite.md" || fail "header does not say no suite was read"

"$plumb" coverage a b > /dev/null 2> "$tmp/err2" && fail "two suites accepted"
[[ "$(wc -l < "$tmp/err2")" -eq 1 ]] || fail "usage error is not one line: $(cat "$tmp/err2")"

suite="$src/../shared/onnx-backend-node"
[[ -d "$suite" ]] || { echo "suite not found: the page check is skipped"; exit 0; }
"$plumb" coverage "$suite" > "$tmp/page.md" || fail "coverage with the suite failed"
cmp -s "$tmp/page.md" "$src/spec/onnx_coverage.md" || fail "spec/onnx_coverage.md differs from plumb coverage's output"
