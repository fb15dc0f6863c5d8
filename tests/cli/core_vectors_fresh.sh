#!/usr/bin/env bash
# The committed core conformance vectors (spec/vectors) are exactly what their generator
# (tools/gen_core_vectors.py, numpy and exact rounding in Python, never plumb) writes today: a
# hand edit or a generator change that was not regenerated fails here. Needs Debian's python3 with
# numpy (tools/setup.sh installs python3-numpy); skipped (77) where there is none.
# Usage: core_vectors_fresh.sh PATH/TO/plumb SOURCE_DIR   (the plumb binary is not used)
set -u
src="$2"
py=/usr/bin/python3
if ! "$py" -c 'import numpy' 2>/dev/null; then
  echo "no $py with numpy: skipped"
  exit 77
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$py" "$src/tools/gen_core_vectors.py" "$tmp/vectors" > "$tmp/log" 2>&1 || { cat "$tmp/log"; echo "FAIL: generator"; exit 1; }
if ! diff -r "$tmp/vectors" "$src/spec/vectors" > "$tmp/diff"; then
  head -n 20 "$tmp/diff"
  echo "FAIL: spec/vectors differs from a fresh generation (regenerate: $py tools/gen_core_vectors.py)"
  exit 1
fi
tail -n 1 "$tmp/log"
echo ok
