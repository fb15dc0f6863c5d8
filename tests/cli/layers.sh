#!/usr/bin/env bash
# The layers of docs/architecture.md: each folder includes only the folders below it, so the
# pipeline goes one way (a runtime never sees ONNX, the frontend never sees a runtime). Reads the
# #include "..." lines of the tracked sources; a new dependency across layers fails here until it
# is argued for in docs/architecture.md and allowed below.
# Usage: layers.sh PATH/TO/plumb SOURCE_DIR   (the plumb binary is not used)
set -u
src="$2"
cd "$src" || exit 1
# folder: the top-level folders its files may include
allowed() {
  case "$1" in
    ir/*) echo "ir spec" ;;
    frontends/*) echo "ir frontends" ;;
    runtime/*) echo "ir runtime spec" ;;
    lowering/*) echo "ir frontends lowering" ;;
    check/onnx/*) echo "ir spec frontends lowering runtime check" ;;
    check/*) echo "ir spec runtime check" ;;
    api/*) echo "ir runtime api include" ;;
    hunt/*) echo "ir spec frontends lowering runtime check hunt" ;;
    *) echo "*" ;;
  esac
}
bad=0
files=$(git ls-files 'ir/*' 'frontends/*' 'runtime/*' 'lowering/*' 'check/*' 'api/*' 'hunt/*' 2>/dev/null | grep -E '\.(cpp|h)$')
for f in $files; do
  ok=$(allowed "$f")
  [ "$ok" = "*" ] && continue
  while IFS= read -r inc; do
    top=${inc%%/*}
    [ -d "$top" ] || continue  # not one of plumb's folders (e.g. libonnx's "onnx/onnx_pb.h")
    case " $ok " in *" $top "*) ;; *) echo "FAIL: $f includes \"$inc\" (its layer may include: $ok)"; bad=1 ;; esac
  done < <(sed -n 's/^#include "\([^"]*\/[^"]*\)".*/\1/p' "$f")
done
[ $bad -eq 0 ] || exit 1
echo "ok: $(echo "$files" | wc -l) files keep to their layers"
