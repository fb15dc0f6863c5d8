#!/usr/bin/env bash
# Digests of everything plumb can run byte for byte, on one build and backend, into OUT/:
#   core.txt          every core conformance vector (plumb conformance --core spec/vectors --digest)
#   backend_node.txt  the newest ONNX backend node suite ($PLUMB_SHARED_DIR/onnx-backend-node,
#                     PLUMB_SHARED_DIR defaults to ../shared)
#   libonnx.txt       Debian's ONNX 1.12 node suite (/usr/share/libonnx-testdata/data/node)
#   models.txt        the whole-model tests (tests/models/*: plumb run --out, sha256 of each output,
#                     or the first line of the error of a model that does not run)
#   times.txt         wall seconds of each part
# Two builds (or two backends) gave byte-identical outputs exactly when `diff -r OUT1 OUT2`, less
# times.txt, is empty. Usage: tools/output_digests.sh PLUMB BACKEND OUT [JOBS]
# (the backend change of issue 14 compared main before and after with it).
set -uo pipefail
plumb=$1 backend=$2 out=$3 jobs=${4:-2}
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
: > "$out/times.txt"
timed() {  # NAME CMD...: runs CMD, appends "NAME SECONDS" to times.txt
  local name=$1 t0=$(date +%s.%N)
  shift
  "$@" > "$out/$name.log" 2>&1
  echo "$name $(echo "$(date +%s.%N) - $t0" | bc)" >> "$out/times.txt"
}
timed core "$plumb" conformance --core "$src/spec/vectors" --backend "$backend" -j "$jobs" --digest "$out/core.txt"
for suite in "backend_node|${PLUMB_SHARED_DIR:-$src/../shared}/onnx-backend-node" "libonnx|/usr/share/libonnx-testdata/data/node"; do
  name=${suite%%|*} dir=${suite#*|}
  [[ -d $dir ]] || continue
  timed "$name" "$plumb" conformance "$dir" --backend "$backend" -j "$jobs" --timeout 300 --digest "$out/$name.txt"
done
: > "$out/models.txt"
t0=$(date +%s.%N)
for model in "$src"/tests/models/*/model*.onnx; do
  d=$(dirname "$model") tmp=$(mktemp -d)
  if "$plumb" run "$model" --data "$d/data" --out "$tmp" --backend "$backend" > /dev/null 2> "$tmp/err"; then
    (cd "$tmp" && sha256sum output_*.pb | sed "s|^|${model#$src/} |") >> "$out/models.txt"
  else
    echo "${model#$src/} run failed: $(head -1 "$tmp/err")" >> "$out/models.txt"
  fi
  rm -rf "$tmp"
done
echo "models $(echo "$(date +%s.%N) - $t0" | bc)" >> "$out/times.txt"
