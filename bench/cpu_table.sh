#!/usr/bin/env bash
# The cpu backend beside ref and onnxruntime (issue 16), in one run on the same models and inputs:
# plumb bench --backend ref / cpu and bench/peer_ort.sh, at THREADS threads (default 1), printed
# as one table (median ms, the ratio to onnxruntime, peak RSS), with the load average before and
# after (the figures are only comparable within one run on a quiet machine).
#
#   bench/cpu_table.sh PLUMB BENCH_MODELS_DIR
#
# BENCH_MODELS_DIR: the output folder of /work/shared/bench-models/make_models.py. RUNS (default
# 10) timed runs per model on cpu and onnxruntime, REF_RUNS (default 3) on ref.
set -euo pipefail
plumb=$1 bm=$2
src=$(cd "$(dirname "$0")/.." && pwd)
threads=${THREADS:-1} runs=${RUNS:-10} ref_runs=${REF_RUNS:-3}
models=(resnet18_224 mobilenet_v2_224 bert4_seq128)
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); threads $threads; $(nproc) cores"
declare -A ref cpu ort cpu_rss ort_rss
for m in "${models[@]}"; do
  d=$bm/$m
  [[ -f $d/model.onnx ]] || { echo "$d/model.onnx missing"; exit 2; }
  line=$(OMP_NUM_THREADS=$threads "$plumb" bench "$d/model.onnx" --data "$d/test_data_set_0" --backend ref --threads "$threads" --runs "$ref_runs")
  ref[$m]=$(sed -E 's/.*median_ms=([0-9.]+).*/\1/' <<<"$line")
  line=$(OMP_NUM_THREADS=$threads "$plumb" bench "$d/model.onnx" --data "$d/test_data_set_0" --backend cpu --threads "$threads" --runs "$runs")
  cpu[$m]=$(sed -E 's/.*median_ms=([0-9.]+).*/\1/' <<<"$line")
  cpu_rss[$m]=$(sed -E 's/.*peak_rss_mb=([0-9.]+).*/\1/' <<<"$line")
done
while IFS=$'\t' read -r name wall _ _ rss; do
  ort[$name]=${wall#wall_ms_median=}
  ort_rss[$name]=${rss#peak_rss_MB=}
done < <(RUNS=$runs ORT_THREADS=$threads bash "$src/bench/peer_ort.sh" "$bm" | grep -E "^(resnet18_224|mobilenet_v2_224|bert4_seq128)\b")
printf "%-18s %12s %12s %12s %9s %9s %12s %12s\n" model ref_ms cpu_ms ort_ms cpu/ort ref/ort cpu_rss_MB ort_rss_MB
geo=0
for m in "${models[@]}"; do
  r=$(awk -v a="${cpu[$m]}" -v b="${ort[$m]}" 'BEGIN{printf "%.2f", a/b}')
  rr=$(awk -v a="${ref[$m]}" -v b="${ort[$m]}" 'BEGIN{printf "%.1f", a/b}')
  geo=$(awk -v g="$geo" -v x="$r" 'BEGIN{print g + log(x)}')
  printf "%-18s %12s %12s %12s %9s %9s %12s %12s\n" "$m" "${ref[$m]}" "${cpu[$m]}" "${ort[$m]}" "$r" "$rr" \
    "${cpu_rss[$m]}" "${ort_rss[$m]}"
done
echo "geometric mean cpu/ort: $(awk -v g="$geo" -v n=${#models[@]} 'BEGIN{printf "%.2f", exp(g/n)}')"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg) (onnxruntime's RSS is one process over the models in turn)"
