#!/usr/bin/env bash
# Fails, naming file:line, on an `#include "folder/..."` under src/ that points up the
# layer order (docs/architecture.md): a folder may include itself and the folders
# before it in the order, never one after it.
# Usage: check_include_order.sh SRC_DIR LAYER...   (the layers bottom first)
set -euo pipefail
src=$1
shift
declare -A rank
i=0
for layer in "$@"; do rank[$layer]=$i; i=$((i + 1)); done

status=0
# Every folder under src/ must have a place in the order.
for dir in "$src"/*/; do
  folder=$(basename "$dir")
  if [[ -z ${rank[$folder]+x} ]]; then
    echo "src/$folder/: a folder with no place in the layer order (add it to NCCLSWEEP_LAYERS in src/CMakeLists.txt)"
    status=1
  fi
done

while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  text=${rest#*:}
  # bash's own regex, not a sed per include: one pass over ~1000 includes, not 1000 forks.
  [[ $text =~ \"([^\"]*)\" ]] || continue
  target=${BASH_REMATCH[1]}
  [[ $target == */* ]] || continue  # generated headers and kernels/ are not layers
  to=${target%%/*}
  from=${file#"$src"/}
  from=${from%%/*}
  [[ -n ${rank[$to]+x} && -n ${rank[$from]+x} ]] || continue
  if ((rank[$to] > rank[$from])); then
    echo "src/${file#"$src"/}:$line: $from includes $target, a layer above it ($*)"
    status=1
  fi
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$src" --include='*.hpp' --include='*.cpp' --include='*.cu' --include='*.h')

if ((status == 0)); then echo "include order ok: $*"; fi
exit $status
