#!/usr/bin/env bash
# plumb --help, plumb help COMMAND, plumb COMMAND --help / -h and plumb --version (issue 20): each
# command's page on stdout with its usage, every option its parser accepts, and its exit codes,
# exit 0; an unknown command in `help` is exit 2. --version names the core op set version, the
# build options and the backends.
set -uo pipefail
plumb=$1
fail() { echo "FAIL: $*"; exit 1; }
out=$("$plumb" --help 2>&1) || fail "--help: exit $?"
[[ "$out" == usage:* ]] || fail "--help: $out"
for c in verify print asm run convert check conformance coverage diff help; do
  grep -q "^  $c" <<<"$out" || fail "--help does not list $c"
  for form in "help $c" "$c --help" "$c -h"; do
    # shellcheck disable=SC2086
    page=$("$plumb" $form 2>/dev/null)
    rc=$?
    [[ $rc -eq 0 ]] || fail "plumb $form: exit $rc"
    [[ "$page" == "usage: plumb $c"* ]] || fail "plumb $form: no usage line: $page"
    grep -q "exit codes:" <<<"$page" || fail "plumb $form: no exit codes"
  done
done
# Every option a command's parser takes is on its page.
declare -A options=(
  [print]="--full --data"
  [asm]="-o --external-weights"
  [run]="--data --input --out --backend --precise --max-iterations --max-bytes --max-memory PLUMB_VERBOSE"
  [convert]="-o"
  [check]="--data --input --expected --against --tolerance --rtol --atol --report --no-isolate --chunk-mb --samples --max-memory"
  [diff]="--data --input --report --threads --samples"
  [conformance]="--core --backend --filter --csv -j --timeout --known-failures --digest --cells --strict -v"
)
for c in "${!options[@]}"; do
  page=$("$plumb" help "$c")
  for o in ${options[$c]}; do
    grep -qe "$o" <<<"$page" || fail "plumb help $c does not describe $o"
  done
done
page=$("$plumb" help check)
grep -q "3 inconclusive" <<<"$page" || fail "check's page lacks exit code 3"
grep -q "docs/check.md" <<<"$page" || fail "check's page does not point at docs/check.md"
# --help anywhere after the command word, even among other arguments.
"$plumb" check model.onnx --data nowhere --help | grep -q "^usage: plumb check" || fail "check ... --help"
out=$("$plumb" help nosuch 2>&1)
rc=$?
[[ $rc -eq 2 && "$out" == "plumb: help: unknown command 'nosuch'"* ]] || fail "help nosuch: exit $rc: $out"
out=$("$plumb" nosuch 2>&1)
[[ $? -eq 2 && "$out" == "plumb: unknown command 'nosuch'"* ]] || fail "unknown command: $out"
out=$("$plumb" --version)
rc=$?
[[ $rc -eq 0 ]] || fail "--version: exit $rc"
grep -Eq '^plumb [0-9]+\.[0-9]+\.[0-9]+$' <<<"$out" || fail "--version has no version line: $out"
grep -Eq '^core op set version [0-9]+' <<<"$out" || fail "--version has no core version: $out"
grep -Eq '^build: .*PLUMB_TINY=(ON|OFF)' <<<"$out" || fail "--version has no build options: $out"
grep -Eq '^backends: (.*, )?ref' <<<"$out" || fail "--version does not list the ref backend: $out"
echo "ok"
