#!/usr/bin/env bash
# The installed package (cmake/install.cmake): installs the build tree into a fresh prefix, then
# builds tests/package/consumer against it twice, with find_package(plumb) and with pkg-config,
# runs both on the bundled example, and imports the installed Python package.
#   consumer.sh BUILD_DIR SOURCE_DIR [PYTHON]
set -euo pipefail
build=$1 src=$2 py=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log"
for f in bin/plumb lib/libplumb.so lib/cmake/plumb/plumbConfig.cmake lib/pkgconfig/plumb.pc \
         include/plumb/plumb.h include/plumb/runtime/session.h include/plumb/ir/schema/plumb_generated.h; do
  [[ -e $prefix/$f ]] || { echo "FAIL: the install has no $f"; exit 1; }
done
ex=$src/examples/mlp_torch
"$prefix/bin/plumb" convert "$ex/model.onnx" -o "$tmp/mlp.plumb"

# 1. find_package(plumb)
cmake -S "$src/tests/package/consumer" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  >"$tmp/cm.log" || { cat "$tmp/cm.log"; exit 1; }
cmake --build "$tmp/cm" >"$tmp/cm-build.log" 2>&1 || { cat "$tmp/cm-build.log"; exit 1; }
out=$("$tmp/cm/consumer" "$tmp/mlp.plumb" "$ex/model.onnx" "$ex/data")
echo "find_package: $out"
[[ $out == *"output: f32[3,6]"*"check: match"* ]] || { echo "FAIL: find_package consumer"; exit 1; }

# 2. pkg-config
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
g++ -std=c++17 -O1 "$src/tests/package/consumer/main.cpp" -o "$tmp/pc-consumer" $(pkg-config --cflags --libs plumb)
out=$("$tmp/pc-consumer" "$tmp/mlp.plumb" "$ex/model.onnx" "$ex/data")
echo "pkg-config: $out"
[[ $out == *"check: match"* ]] || { echo "FAIL: pkg-config consumer"; exit 1; }
# The C API (include/plumb.h) from a C program: the .plumb model loads and verifies.
cat >"$tmp/c_consumer.c" <<'C'
#include <stdio.h>
#include "plumb.h"
int main(int argc, char** argv) {
  plumb_model* m = plumb_model_create();
  int rc = plumb_model_load_file(m, argv[1]) == PLUMB_OK ? 0 : 1;
  if (rc) fprintf(stderr, "%s\n", plumb_last_error(m));
  plumb_model_destroy(m);
  return rc;
}
C
gcc -std=c99 "$tmp/c_consumer.c" -o "$tmp/c-consumer" $(pkg-config --cflags --libs plumb)
"$tmp/c-consumer" "$tmp/mlp.plumb" || { echo "FAIL: C API consumer"; exit 1; }
echo "C API: loaded"

# 3. the Python package, from the prefix only
if [[ -n $py ]]; then
  site=$(find "$prefix/lib" -type d -name dist-packages | head -1)
  [[ -n $site && -e $site/plumb/__init__.py ]] || { echo "FAIL: the install has no Python package"; exit 1; }
  out=$(cd "$tmp" && PYTHONPATH=$site "$py" -c "
import plumb, sys
assert plumb.__file__.startswith('$site'), plumb.__file__
print(plumb.check('$ex/model.onnx', '$ex/data').verdict)")
  echo "python: $out"
  [[ $out == match ]] || { echo "FAIL: installed Python package"; exit 1; }
fi
echo "OK"
