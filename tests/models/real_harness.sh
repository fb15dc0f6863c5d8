# Sourced by tests/cli/check_real_*.sh (plumb check on the real models of tests/models, made by
# make_real_models.py): the model list, one checked case, the known-failures list, the summary.
#
# A case is "<model> <case id>" (e.g. "resnet_small F3/full-noiso"); it passes or fails on its
# own. tests/models/real_known_failures.txt lists the cases that fail on today's plumb, one a line
# with the reason observed; a listed failure is counted and reported but does not fail the script;
# an unlisted failure does; a listed case that passes is printed so the line can be removed.
# Each case prints one line: "ok: <model> <case>", "known failure: <model> <case> <reason>" or
# "FAIL: <model> <case> <reason>" (an unlisted failure, in the list's own form).
#
# Environment (for slow builds such as ASan+UBSan, tools/test.sh): PLUMB_REAL_CASES, an extended
# regex; only the case ids it matches run (e.g. '^match/full$'), the others are counted as not
# run. PLUMB_REAL_TIMEOUT: seconds per case (default 120).
#
# Needs: $plumb, $src; /usr/bin/python3 with python3-onnx (tools/setup.sh). Exit 77 (skipped) in a
# build without the ONNX tools.

real_models_dir=$src/tests/models
real_known=$real_models_dir/real_known_failures.txt
real_passed=0 real_failed=0 real_known_failed=0 real_unlisted=0 real_not_run=0
real_cases_re=${PLUMB_REAL_CASES:-}
real_timeout=${PLUMB_REAL_TIMEOUT:-120}
real_now_passing=()
real_tmp=$(mktemp -d)
trap 'rm -rf "$real_tmp"' EXIT

if ! /usr/bin/python3 -c 'import onnx' 2>/dev/null; then
  echo "no /usr/bin/python3 with onnx (python3-onnx; tools/setup.sh installs it)"
  exit 1
fi
if [[ "$("$plumb" check 2>&1)" == *"not implemented in this build"* ]]; then
  echo "no ONNX tools in this build: skipped"
  exit 77
fi

# The real models: the folders of tests/models with a faults.txt (made by make_real_models.py).
real_models() {
  local d
  for d in "$real_models_dir"/*/faults.txt; do basename "$(dirname "$d")"; done
}

# The expected values with every intermediate (torch's outputs, onnxruntime's node outputs) of a
# model, in one folder; prints its path.
real_full() {  # model
  /usr/bin/python3 "$real_models_dir/real_cases.py" full "$real_models_dir/$1" "$real_tmp/$1.full" &&
    echo "$real_tmp/$1.full"
}

real_is_known() {  # model case
  grep -q "^$1 $2 " "$real_known" 2>/dev/null || grep -qx "$1 $2" "$real_known" 2>/dev/null
}

real_result() {  # model case ok(0|1) reason
  local model=$1 id=$2 ok=$3 reason=$4
  if [[ $ok -eq 0 ]]; then
    real_passed=$((real_passed + 1))
    echo "ok: $model $id"
    if real_is_known "$model" "$id"; then real_now_passing+=("$model $id"); fi
    return
  fi
  real_failed=$((real_failed + 1))
  if real_is_known "$model" "$id"; then
    real_known_failed=$((real_known_failed + 1))
    echo "known failure: $model $id $reason"
  else
    real_unlisted=$((real_unlisted + 1))
    echo "FAIL: $model $id $reason"
  fi
}

# Runs plumb check and judges it. want: 0 (match), 1 (mismatch), or "1:NODE" (mismatch whose first
# divergence is NODE). The rest: plumb check's arguments after the model.
real_check() {  # model case want model_file args...
  local model=$1 id=$2 want=$3 file=$4 out rc node
  shift 4
  if [[ -n $real_cases_re && ! $id =~ $real_cases_re ]]; then
    real_not_run=$((real_not_run + 1))
    return
  fi
  out=$(timeout "$real_timeout" "$plumb" check "$file" "$@" 2>&1)
  rc=$?
  if [[ $rc -eq 124 ]]; then
    real_result "$model" "$id" 1 "timeout ($real_timeout s)"
    return
  elif [[ $rc -ge 128 ]]; then
    real_result "$model" "$id" 1 "crash (signal $((rc - 128)))"
    return
  fi
  node=${want#1:}
  [[ $node == "$want" ]] && node=""
  if [[ $rc -ne ${want%%:*} ]]; then
    local why
    case "$rc:${want%%:*}" in
      0:1) why="false match" ;;
      1:0) why="false alarm: $(grep -m1 '^first divergence' <<<"$out" || grep -m1 -i 'mismatch' <<<"$out")" ;;
      2:*) why="error: $(grep -m1 '^plumb' <<<"$out" | cut -c1-200)" ;;
      3:*) why="inconclusive: $(tail -n1 <<<"$out" | cut -c1-200)" ;;
      *) why="" ;;
    esac
    real_result "$model" "$id" 1 "exit $rc, expected ${want%%:*} ($why)"
    return
  fi
  if [[ -n $node ]] && ! grep -qF "first divergence: node '$node' (" <<<"$out"; then
    local got
    got=$(grep -m1 '^first divergence' <<<"$out")
    real_result "$model" "$id" 1 "exit 1 but names another node: ${got:-no first divergence line} (expected '$node')"
    return
  fi
  real_result "$model" "$id" 0 ""
}

real_summary() {
  local p
  for p in "${real_now_passing[@]}"; do echo "now passes (remove from real_known_failures.txt): $p"; done
  local not_run=""
  [[ $real_not_run -gt 0 ]] && not_run=", $real_not_run not run (PLUMB_REAL_CASES='$real_cases_re')"
  echo "$real_passed passed, $real_failed failed ($real_known_failed listed in tests/models/real_known_failures.txt, $real_unlisted not listed)$not_run"
  [[ $real_unlisted -eq 0 ]]
}
