#!/usr/bin/env bash
# plumb reduce on single-node faults injected into the real models of tests/models (issue 22's
# acceptance: each reduced to a repro of at most 5 nodes that still fails). For each model: the
# faults of its faults.txt are made (tests/models/real_cases.py, python3-onnx), one is picked (F<k>
# with k = 1 + the model's position mod its number of faults, so the faults vary; FAULT=F3 picks
# one for all), and
#   plumb reduce F.onnx --data MODEL/data --expected FULL --until check-fails -o OUT [ARGS]
# runs with FULL = torch's outputs and onnxruntime's every node output (real_cases.py full). The
# repro is then judged independently of the reducer: at most 5 nodes, `plumb check` on OUT exits 1,
# and onnx.checker.check_model(full_check=True) (python3-onnx 1.12) accepts it.
# Prints one table row per model and a summary; CPU time is user+sys of plumb reduce.
# Usage: bench/reduce_faults.sh PLUMB [MODEL...] [-- EXTRA REDUCE ARGS]   (not run by CI)
set -uo pipefail
plumb=$1
shift
src=$(cd "$(dirname "$0")/.." && pwd)
models=() extra=()
while [[ $# -gt 0 ]]; do
  if [[ $1 == -- ]]; then shift; extra=("$@"); break; fi
  models+=("$1"); shift
done
if [[ ${#models[@]} -eq 0 ]]; then
  for f in "$src"/tests/models/*/faults.txt; do models+=("$(basename "$(dirname "$f")")"); done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok=0 bad=0 i=0
printf '| model | fault | faulty node | nodes before | after | kept | tests | cpu s | verdict |\n|---|---|---|---|---|---|---|---|---|\n'
for m in "${models[@]}"; do
  d=$src/tests/models/$m
  mapfile -t faults < <(/usr/bin/python3 "$src/tests/models/real_cases.py" faults "$d" "$tmp/$m" | awk '$1 ~ /^F/ && $2 == 1')
  /usr/bin/python3 "$src/tests/models/real_cases.py" full "$d" "$tmp/$m/full"
  if [[ ${#faults[@]} -eq 0 ]]; then echo "| $m | - | no fault with exit 1 | | | | | | skipped |"; continue; fi
  pick=${faults[$((i % ${#faults[@]}))]}
  [[ -n ${FAULT:-} ]] && pick=$(printf '%s\n' "${faults[@]}" | awk -v f="$FAULT" '$1 == f')
  i=$((i + 1))
  read -r id _ _ node <<<"$pick"
  out=$tmp/$m/out
  /usr/bin/time -f '%U %S' -o "$tmp/time" "$plumb" reduce "$tmp/$m/$id.onnx" --data "$d/data" --expected "$tmp/$m/full" \
    --until check-fails -o "$out" "${extra[@]}" > "$tmp/log" 2>&1
  rc=$?
  cpu=$(awk '{printf "%.1f", $1 + $2}' "$tmp/time" 2>/dev/null)
  line=$(grep -m1 '^reduced:' "$tmp/log")
  before=$(sed -n 's/^reduced: \([0-9]*\) -> .*/\1/p' <<<"$line")
  after=$(sed -n 's/^reduced: [0-9]* -> \([0-9]*\) nodes.*/\1/p' <<<"$line")
  tests=$(sed -n 's/.*; \([0-9]*\) tests,.*/\1/p' <<<"$line")
  kept=$(sed -n 's/^reduced: [0-9]* -> [0-9]* nodes (\(.*\)); [0-9]* tests.*/\1/p' <<<"$line")
  verdict=ok
  if [[ $rc -ne 0 ]]; then
    verdict="reduce exit $rc: $(grep -m1 '^plumb' "$tmp/log" | cut -c1-160)"
  elif [[ -z $after || $after -gt 5 ]]; then
    verdict="$after nodes (more than 5)"
  else
    "$plumb" check "$out/model.onnx" --data "$out/test_data_set_0" > "$tmp/check" 2>&1
    crc=$?
    if [[ $crc -ne 1 ]]; then
      verdict="plumb check on the repro exits $crc"
    elif ! /usr/bin/python3 -c "import onnx, sys; onnx.checker.check_model(onnx.load(sys.argv[1]), full_check=True)" \
        "$out/model.onnx" 2> "$tmp/pyerr"; then
      verdict="onnx.checker: $(tail -1 "$tmp/pyerr" | cut -c1-160)"
    fi
  fi
  [[ $verdict == ok ]] && ok=$((ok + 1)) || bad=$((bad + 1))
  echo "| $m | $id | \`$node\` | $before | $after | $kept | $tests | $cpu | $verdict |"
done
echo "$ok reduced to a failing repro of at most 5 nodes, $bad not"
[[ $bad -eq 0 ]]
