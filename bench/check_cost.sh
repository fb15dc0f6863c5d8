#!/usr/bin/env bash
# What `plumb check` costs (issue 12): wall time and peak memory (/usr/bin/time -v, maximum
# resident set) of plumb check on resnet18 and the 4-layer BERT encoder of
# /work/shared/bench-models/make_models.py, with outputs only (torch's output_0.pb) and with every
# node output as expected values (onnxruntime-node's, tools/ort_dump.mjs), in the default mode
# and --no-isolate, each as a ratio to one `plumb run` of the same model and inputs. Prints one
# line per case: "<model> <case> wall <s> (x<ratio>) user <s> (x<ratio>) peak <MB> (x<ratio>)
# exit <rc>", after one line with the machine's load average. The exit of each check is printed,
# not judged (the tests judge verdicts); wall times depend on the machine's load, user CPU time
# much less (on a shared machine compare user times). THREADS=N passes --threads N to every run
# and check (default: plumb's own default, the machine's cores).
#
#   bench/check_cost.sh PLUMB BENCH_MODELS_DIR [MODEL...]
#
# BENCH_MODELS_DIR: the output folder of make_models.py (generate it outside the repository);
# MODEL: default resnet18_224 bert4_seq128. The every-intermediate cases need node and
# onnxruntime-node in $ORT_PREFIX (default /tmp/ort-peer, as bench/peer_ort.sh installs it); without
# them they are skipped with a line saying so.
set -uo pipefail
plumb=$1 bm=$2
shift 2
models=("$@")
[[ ${#models[@]} -eq 0 ]] && models=(resnet18_224 bert4_seq128)
src=$(cd "$(dirname "$0")/.." && pwd)
prefix=${ORT_PREFIX:-/tmp/ort-peer}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

threads=()
[[ -n ${THREADS:-} ]] && threads=(--threads "$THREADS")
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)${THREADS:+, --threads $THREADS}"

# Runs the command under /usr/bin/time -v; sets wall (s), user (s), peak (MB), rc.
measure() {
  /usr/bin/time -v -o "$work/time" "$@" "${threads[@]}" >"$work/out" 2>&1
  rc=$?
  user=$(awk -F': ' '/User time \(seconds\)/ { print $2 }' "$work/time")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {
    n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$work/time")
  peak=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$work/time")
}

report() {  # model case
  printf '%-14s %-26s wall %7.1f s (x%6.1f)  user %7.1f s (x%6.1f)  peak %6d MB (x%5.1f)  exit %d\n' \
    "$1" "$2" "$wall" "$(awk -v a="$wall" -v b="$run_wall" 'BEGIN { print (b > 0) ? a / b : 0 }')" \
    "$user" "$(awk -v a="$user" -v b="$run_user" 'BEGIN { print (b > 0) ? a / b : 0 }')" "$peak" \
    "$(awk -v a="$peak" -v b="$run_peak" 'BEGIN { print (b > 0) ? a / b : 0 }')" "$rc"
}

have_ort=0
command -v node >/dev/null && [[ -d $prefix/node_modules/onnxruntime-node ]] && have_ort=1
for m in "${models[@]}"; do
  model=$bm/$m/model.onnx data=$bm/$m/test_data_set_0
  [[ -f $model ]] || { echo "$m: no $model (run make_models.py $bm)"; continue; }
  measure "$plumb" run "$model" --data "$data"
  [[ $rc -eq 0 ]] || { echo "$m: plumb run failed: $(tail -1 "$work/out")"; continue; }
  run_wall=$wall run_user=$user run_peak=$peak
  report "$m" "run"
  measure "$plumb" check "$model" --data "$data"
  report "$m" "check outputs only"
  measure "$plumb" check "$model" --data "$data" --no-isolate
  report "$m" "check outputs --no-isolate"
  if [[ $have_ort -eq 0 ]]; then
    echo "$m: every intermediate skipped (no node or onnxruntime-node in $prefix)"
    continue
  fi
  NODE_PATH=$prefix/node_modules node "$src/tools/ort_dump.mjs" "$model" "$data" "$work/$m.ort" >"$work/dump" 2>&1 ||
    { echo "$m: ort_dump failed: $(tail -1 "$work/dump")"; continue; }
  echo "$m: $(tail -1 "$work/dump")"
  measure "$plumb" check "$model" --data "$data" --expected "$work/$m.ort"
  report "$m" "check every intermediate"
  measure "$plumb" check "$model" --data "$data" --expected "$work/$m.ort" --no-isolate
  report "$m" "check every interm. noiso"
  rm -rf "${work:?}/$m.ort"
done
