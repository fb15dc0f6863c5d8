#!/usr/bin/env bash
# plumb coverage --sequences N (issue 22): the op n-gram coverage of the committed torch exports
# (tests/models) by the ONNX node suites (the newest, ../shared/onnx-backend-node, and Debian's
# ONNX 1.12 one, where present). The summary has one row per n; the JSON (docs/coverage-sequences.md,
# what plumb gen --targets reads) agrees with it: per n, covered <= distinct, and one uncovered
# entry per distinct n-gram not covered, each with its ops; the HTML page is self-contained.
# Errors: exit 2, one line naming the file. Exit 77 in a build without the ONNX tools.
set -uo pipefail
plumb=$1 src=$2
source "$src/tests/cli/lib/skips.sh"
skip_without_onnx "$plumb" "$src"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

against=()
for s in "$src/../shared/onnx-backend-node" /usr/share/libonnx-testdata/data/node; do
  [[ -d $s ]] && against+=(--against "$s")
done
[[ ${#against[@]} -gt 0 ]] || echo "no node suite found: coverage by the models themselves"
[[ ${#against[@]} -gt 0 ]] || against=(--against "$src/tests/models/resnet_small")
"$plumb" coverage --sequences 3 "$src/tests/models" "${against[@]}" --json "$tmp/c.json" --html "$tmp/c.html" \
  > "$tmp/out" 2> "$tmp/err" || fail "exit $?: $(cat "$tmp/err")"
cat "$tmp/out"
for n in 1 2 3; do grep -qE "^$n +[0-9]+ +[0-9]+ " "$tmp/out" || fail "no row for n = $n"; done
/usr/bin/python3 - "$tmp/c.json" <<'PY' || fail "the JSON does not agree with itself"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["format"] == "plumb-sequence-coverage/1" and r["max_n"] == 3
assert r["models"]["files"] > 0 and r["against"]["files"] > 0
missing = 0
for c in r["counts"]:
    assert 0 <= c["covered"] <= c["distinct"] and 0 <= c["covered_occurrences"] <= c["occurrences"]
    assert c["ops_distinct"] <= c["distinct"] and c["ops_covered"] <= c["ops_distinct"]
    missing += c["distinct"] - c["covered"]
assert len(r["uncovered"]) == missing, (len(r["uncovered"]), missing)
for u in r["uncovered"]:
    assert len(u["ops"]) == u["n"] and u["count"] >= 1 and u["example"]
    assert u["key"] == " -> ".join(o["label"] for o in u["ops"])
counts = [u["count"] for u in r["uncovered"]]
assert counts == sorted(counts, reverse=True)
PY
grep -q '<table id="counts">' "$tmp/c.html" || fail "no counts table in the HTML page"
if grep -qiE '<script|src="http' "$tmp/c.html"; then fail "the HTML page is not self-contained"; fi

"$plumb" coverage --sequences 0 "$src/tests/models" > /dev/null 2> "$tmp/err" && fail "--sequences 0 accepted"
[[ $(wc -l < "$tmp/err") -eq 1 ]] || fail "usage error is not one line: $(cat "$tmp/err")"
"$plumb" coverage --sequences 2 "$tmp/nothing.onnx" > /dev/null 2> "$tmp/err" && fail "a missing model accepted"
grep -q "nothing.onnx" "$tmp/err" || fail "the error does not name the file: $(cat "$tmp/err")"
echo "ok"
