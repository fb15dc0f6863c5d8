#!/usr/bin/env bash
# plumb diff's timings (issue 24) on the bench models of ../shared/bench-models/make_models.py
# (resnet18 at 224, the 4-layer BERT-base-width encoder at seq 128; made into BENCH_DIR once when it
# has none). Each model against: itself; an f16 copy (every float initializer rounded); an int8 copy
# (every Conv, Gemm and MatMul weight per channel, symmetric, dequantized in place); an int8 QDQ copy
# (those weights as int8 with a DequantizeLinear: plumb diff evaluates them); and the f16 copy with
# --data (both run on the bench input, B checked against A's values with check's bound). The copies
# are tests/models/diff_variants.py's (python3-onnx). One row per run: wall and CPU (user+sys)
# seconds, peak memory, the load average before it, the verdict and the number of findings.
# Usage: bench/diff_timing.sh PLUMB [BENCH_DIR]   (default BENCH_DIR /work/bench-models; not run by CI)
set -uo pipefail
plumb=$1
bench=${2:-/work/bench-models}
src=$(cd "$(dirname "$0")/.." && pwd)
if [[ ! -d $bench/resnet18_224 || ! -d $bench/bert4_seq128 ]]; then
  /usr/bin/python3 "$src/../shared/bench-models/make_models.py" "$bench" || exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '| model | against | wall s | cpu s | peak MiB | load | verdict | findings |\n|---|---|---|---|---|---|---|---|\n'
for m in resnet18_224 bert4_seq128; do
  a=$bench/$m/model.onnx
  /usr/bin/python3 - "$src" "$a" "$tmp/$m" <<'PY' || exit 2
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "tests", "models"))
import onnx
import diff_variants as dv
src, out = sys.argv[2], sys.argv[3]
weights = ("Conv", "Gemm", "MatMul")
onnx.save(dv.rounded_to_f16(onnx.load(src)), out + "_f16.onnx")
onnx.save(dv.quantize_weights(onnx.load(src), weights, 8, True, True), out + "_int8.onnx")
onnx.save(dv.qdq_weights(onnx.load(src), weights), out + "_qdq.onnx")
PY
  for case in itself f16 int8 qdq "f16 --data"; do
    set -- $case
    b=$a
    [[ $1 != itself ]] && b=$tmp/${m}_$1.onnx
    args=()
    [[ ${2:-} == --data ]] && args=(--data "$bench/$m/test_data_set_0")
    load=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f '%e %U %S %M' -o "$tmp/time" "$plumb" diff "$a" "$b" "${args[@]}" >"$tmp/out" 2>&1
    read -r wall user sys kib < <(tail -1 "$tmp/time")  # after "Command exited with non-zero status"
    printf '| %s | %s | %s | %.2f | %d | %s | %s | %d |\n' "$m" "$case" "$wall" "$(echo "$user + $sys" | bc)" \
      $((kib / 1024)) "$load" "$(tail -1 "$tmp/out")" "$(grep -c '^changed node' "$tmp/out")"
  done
done
