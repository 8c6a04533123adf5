#!/usr/bin/env bash
# The GPU libraries (CUDA runtime, NCCL, cuBLAS, NVML) come in with the GPU module, which
# only a process that drives a GPU loads (src/doctor/gpu_module.hpp): `plan`, `report`,
# `compare` and every process of `run --engine mpi` load none of them, while
# `run --engine nccl` does load the module (and, without a GPU here, stops saying so).
# Read from the dynamic loader's own account (LD_DEBUG=libs, one file per process).
# Usage: test_gpu_libraries.sh NCCLSWEEP MPIEXEC SOURCE_DIR      (exit 77: no nccl engine in this build)
set -uo pipefail
bin=$(realpath "$1")
mpiexec=$2
src=$3
if [ ! -f "$(dirname "$bin")/libncclsweep-gpu.so" ]; then
  echo "skipped: this build has no GPU module (built without CUDA or NCCL)"
  exit 77
fi
work=$(mktemp -d /tmp/ncclsweep-gpu-libraries.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
gpu_libraries='lib(cudart|nccl|cublas|cublasLt|nvidia-ml|ncclsweep-gpu)\.so'
# Leak checking under Open MPI needs slow full stacks (tests/CMakeLists.txt says why); this
# test is about what is loaded.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)

# loaded NAME: the GPU libraries any process of step NAME initialised, one per line.
loaded() {
  cat "$work/ld-$1".* 2>/dev/null | grep -E "calling init: .*$gpu_libraries" | sed -E 's/.*calling init: //' | sort -u
}
# step NAME EXPECTED_STATUS COMMAND...: runs it with the loader's log on, checks the status.
step() {
  local name=$1 expected=$2; shift 2
  LD_DEBUG=libs LD_DEBUG_OUTPUT="$work/ld-$name" "$@" >"$work/$name.out" 2>&1
  local status=$?
  echo "--- $name: $* (exit $status)"
  [ "$status" -eq "$expected" ] || { fail "$name exited $status, expected $expected"; tail -n 20 "$work/$name.out"; }
  if ! ls "$work/ld-$name".* >/dev/null 2>&1; then fail "$name: no loader log (LD_DEBUG_OUTPUT unsupported?)"; fi
}
# Under mpirun the variables go to the ranks (-x), not to mpirun itself. EXPECTED "any":
# the caller judges $status.
mpi_step() {
  local name=$1 expected=$2; shift 2
  "$mpiexec" --oversubscribe "${root[@]}" -x LD_DEBUG=libs -x LD_DEBUG_OUTPUT="$work/ld-$name" -x ASAN_OPTIONS "$@" \
    >"$work/$name.out" 2>&1
  status=$?
  echo "--- $name: mpirun $* (exit $status)"
  [ "$expected" = any ] || [ "$status" -eq "$expected" ] ||
    { fail "$name exited $status, expected $expected"; tail -n 20 "$work/$name.out"; }
  if ! ls "$work/ld-$name".* >/dev/null 2>&1; then fail "$name: no loader log from its ranks"; fi
}

step plan 0 "$bin" plan "$src/sweeps/smoke-mpi.yaml"
mpi_step mpi 0 -np 2 "$bin" run --engine mpi --collectives all_reduce --sizes 4K --iters 2 -o "$work/mpi-run"
step report 0 "$bin" report "$work/mpi-run"
# The rows alone (--target 0): one run against itself is PASS; the gate would want repeats.
step compare 0 "$bin" compare "$work/mpi-run" "$work/mpi-run" --target 0
for name in plan mpi report compare; do
  libraries=$(loaded "$name")
  [ -z "$libraries" ] || fail "$name loaded GPU libraries: $(echo $libraries)"
done
processes=$(ls "$work"/ld-mpi.* | wc -l)
[ "$processes" -ge 2 ] || fail "run --engine mpi: loader logs of $processes process(es), expected one per rank"

# The other side: the nccl engine loads the module and, through it, NCCL and the CUDA
# runtime; a machine with a GPU then measures, one without refuses the run (exit 2).
mpi_step nccl any -np 1 "$bin" run --engine nccl --collectives all_reduce --sizes 4K --iters 2 -o "$work/nccl-run"
if [ "$status" -ne 0 ]; then
  [ "$status" -eq 2 ] && grep -q "no GPU visible" "$work/nccl.out" ||
    { fail "run --engine nccl exited $status without saying no GPU is visible"; tail -n 20 "$work/nccl.out"; }
fi
libraries=$(loaded nccl)
for library in libncclsweep-gpu.so libnccl.so libcudart.so; do
  grep -q "/$library" <<<"$libraries" || fail "run --engine nccl did not load $library (loaded: $(echo $libraries))"
done

if [ "$failures" -gt 0 ]; then echo "$failures check(s) failed"; exit 1; fi
echo "gpu libraries: none in plan, run --engine mpi, report, compare; the module and NCCL in run --engine nccl"
