#!/usr/bin/env bash
# Sets up, builds and runs plumb's main job on the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
JOBS=${JOBS:-$(nproc)}
cmake --preset default >/dev/null
cmake --build --preset default -j "$JOBS" --target plumb
P=build/bin/plumb
EX=examples/softmax_core
echo "== plumb asm $EX/model.txt -o build/softmax.plumb"
$P asm $EX/model.txt -o build/softmax.plumb
echo "== plumb verify build/softmax.plumb"
$P verify build/softmax.plumb
echo "== plumb print build/softmax.plumb"
$P print build/softmax.plumb
