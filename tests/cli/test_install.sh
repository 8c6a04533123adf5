#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the installed binary run from another
# directory, where no configs/ or sweeps/ are: it must find its data beside itself
# (P/share/ncclsweep) and its GPU module (P/lib/ncclsweep), and NCCLSWEEP_DATA_DIR must
# override the data. Then `cpack -G DEB`
# into a temporary directory: the package holds the same tree and names its dependencies.
# Usage: test_install.sh BUILD_DIR MPIEXEC
set -uo pipefail
build=$(realpath "$1")
mpiexec=$2
work=$(mktemp -d /tmp/ncclsweep-install-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# run NAME COMMAND...: output in $work/NAME.out, exit status in $status.
run() {
  local name=$1; shift
  "$@" >"$work/$name.out" 2>&1
  status=$?
  echo "--- $* (exit $status)"; tail -n 8 "$work/$name.out" | sed 's/^/  | /'
}
expect() { grep -qF -- "$2" "$work/$1.out" || fail "$1: expected '$2'"; }

prefix=$work/prefix
run install cmake --install "$build" --prefix "$prefix"
[ "$status" -eq 0 ] || fail "cmake --install exited $status"
for path in bin/ncclsweep share/ncclsweep/configs/models/llama3-8b.yaml share/ncclsweep/configs/workloads \
  share/ncclsweep/configs/systems share/ncclsweep/sweeps/smoke-mpi.yaml share/ncclsweep/sweeps/workload-2gpu.yaml; do
  [ -e "$prefix/$path" ] || fail "not installed: $path"
done

mkdir -p "$work/elsewhere"
cd "$work/elsewhere" || exit 1
bin=$prefix/bin/ncclsweep
data=$prefix/share/ncclsweep
unset NCCLSWEEP_MODELS_DIR NCCLSWEEP_DATA_DIR

# A model by name: found in the installed catalog.
run sizes "$bin" sizes --model llama3-8b --dp 8
[ "$status" -eq 0 ] || fail "sizes --model llama3-8b --dp 8 exited $status"
expect sizes "reduce_scatter"
expect sizes "all_gather"
# A model that is not there: the message names the catalog it looked in, the installed one.
run missing-model "$bin" sizes --model no-such-model --dp 8
[ "$status" -eq 2 ] || fail "an unknown model exited $status, expected 2"
expect missing-model "$data/configs/models"

# An installed example sweep whose sizes come from an installed workload (a relative path).
run plan "$bin" plan "$data/sweeps/workload-2gpu.yaml"
[ "$status" -eq 0 ] || fail "plan of the installed workload-2gpu.yaml exited $status"
expect plan "NCCL_MAX_NCHANNELS"

# Measuring, under mpirun, with the mpi engine.
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
run mpi "$mpiexec" -np 2 --oversubscribe "${root[@]}" "$bin" run --engine mpi --collectives all_reduce \
  --sizes 1K:64K:x8 --warmup 0 --iters 2 -o "$work/elsewhere/results"
[ "$status" -eq 0 ] || fail "mpirun -np 2 ncclsweep run --engine mpi exited $status"
[ -f "$work/elsewhere/results/run.json" ] || fail "no run.json"
expect mpi "all_reduce"

# The GPU module: installed where the binary looks for it (lib/ncclsweep), and loaded from
# there by the nccl engine, which then measures, or says that no GPU is visible - never
# that the module is missing. (No leak checking: CUDA's failed start is not ncclsweep's.)
if [ -f "$build/libncclsweep-gpu.so" ]; then
  [ -f "$prefix/lib/ncclsweep/libncclsweep-gpu.so" ] || fail "not installed: lib/ncclsweep/libncclsweep-gpu.so"
  run nccl env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" "$mpiexec" -np 1 --oversubscribe "${root[@]}" \
    "$bin" run --engine nccl --collectives all_reduce --sizes 4K --iters 2 -o "$work/elsewhere/nccl-results"
  if [ "$status" -ne 0 ] && ! { [ "$status" -eq 2 ] && grep -q "no GPU visible" "$work/nccl.out"; }; then
    fail "the installed ncclsweep's nccl engine exited $status without measuring or saying no GPU is visible"
  fi
fi

# NCCLSWEEP_DATA_DIR wins over the installed data.
mkdir -p "$work/other-data/configs/models"
run override env NCCLSWEEP_DATA_DIR="$work/other-data" "$bin" sizes --model llama3-8b --dp 8
[ "$status" -eq 2 ] || fail "NCCLSWEEP_DATA_DIR with no llama3-8b: exit $status, expected 2"
expect override "$work/other-data/configs/models"
cp "$data/configs/models/llama3-8b.yaml" "$work/other-data/configs/models/"
run override-ok env NCCLSWEEP_DATA_DIR="$work/other-data" "$bin" sizes --model llama3-8b --dp 8
[ "$status" -eq 0 ] || fail "NCCLSWEEP_DATA_DIR with llama3-8b: exit $status, expected 0"

# The .deb: built with the same install rules, for /usr, with distro package dependencies.
if command -v cpack >/dev/null 2>&1; then
  run deb cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/deb"
  deb=$(find "$work/deb" -maxdepth 1 -name 'ncclsweep_*.deb' | head -n 1)
  if [ "$status" -ne 0 ] || [ -z "$deb" ]; then
    fail "cpack -G DEB made no package"
  elif command -v dpkg-deb >/dev/null 2>&1; then
    depends=$(dpkg-deb -f "$deb" Depends)
    echo "--- $(basename "$deb"): Depends: $depends"
    for package in openmpi-bin libyaml-cpp zlib1g; do
      grep -q "$package" <<<"$depends" || fail "the .deb does not depend on $package"
    done
    contents=$(dpkg-deb -c "$deb")
    paths=(./usr/bin/ncclsweep ./usr/share/ncclsweep/configs/models/llama3-8b.yaml ./usr/share/ncclsweep/sweeps/smoke-mpi.yaml)
    [ -f "$build/libncclsweep-gpu.so" ] && paths+=(./usr/lib/ncclsweep/libncclsweep-gpu.so)
    for path in "${paths[@]}"; do
      grep -qF " $path" <<<"$contents" || fail "the .deb lacks $path"
    done
  fi
fi

if [ "$failures" -gt 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "install: the installed ncclsweep works from another directory; the .deb builds"
