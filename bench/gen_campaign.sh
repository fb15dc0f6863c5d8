#!/usr/bin/env bash
# Differential campaign (issue 22): `plumb gen` writes COUNT models (SHARDS shards run as parallel
# processes, as a scheduler would), then bench/gen_campaign.py checks each with onnx.checker (full
# check), runs it on onnxruntime-node and classifies where ort and plumb ref part, reducing each
# disagreement with `plumb reduce`. onnxruntime-node is installed with npm into $ORT_PREFIX
# (default /tmp/ort-peer, as bench/peer_ort.sh), never into the repository.
#
#   bench/gen_campaign.sh PLUMB OUT [COUNT=1000] [SEED=1] [SHARDS=2]
# GEN_ARGS (e.g. "--opset 17 --max-nodes 12") goes to every plumb gen.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
plumb=$1 out=$2 count=${3:-1000} seed=${4:-1} shards=${5:-2}
prefix=${ORT_PREFIX:-/tmp/ort-peer}
if [[ ! -d $prefix/node_modules/onnxruntime-node ]]; then
  mkdir -p "$prefix"
  (cd "$prefix" && npm install --no-audit --no-fund --ignore-scripts onnxruntime-node > /dev/null)
fi
rm -rf "$out/models"
mkdir -p "$out"
pids=()
for ((i = 0; i < shards; ++i)); do
  # shellcheck disable=SC2086
  "$plumb" gen -o "$out/models" --seed "$seed" --count "$count" --shard "$i/$shards" ${GEN_ARGS:-} &
  pids+=($!)
done
for p in "${pids[@]}"; do wait "$p"; done
/usr/bin/python3 "$src/bench/gen_campaign.py" "$plumb" "$out/models" "$out" "$prefix/node_modules" -j "$shards"
