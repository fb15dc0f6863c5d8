#!/usr/bin/env bash
# Checks that every C++ and CUDA source that git tracks, or would track (untracked, not ignored:
# a new file is checked before `git add`), is formatted with clang-format-14 and the repository's
# .clang-format (what CI runs; tools/setup.sh installs clang-format-14). Generated headers that
# opt out with "// clang-format off" are formatted as they say. With --fix, formats them instead.
# Exit 0: clean; 1: the files listed need `clang-format-14 -i`.
set -uo pipefail
cd "$(dirname "$0")/.."
fmt=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$fmt" >/dev/null; then
  echo "check_format: $fmt not found (tools/setup.sh installs it)" >&2
  exit 2
fi
fix=0
[ "${1:-}" = "--fix" ] && fix=1
bad=()
while IFS= read -r f; do
  if [ $fix -eq 1 ]; then
    "$fmt" -i "$f"
  elif ! "$fmt" --dry-run -Werror "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done < <(git ls-files --cached --others --exclude-standard '*.cpp' '*.h' '*.cc' '*.hpp' '*.cu' '*.cuh')
if ((${#bad[@]})); then
  printf '%s\n' "${bad[@]}"
  echo "check_format: ${#bad[@]} files need $fmt -i (or tools/check_format.sh --fix)"
  exit 1
fi
echo "check_format: clean"
