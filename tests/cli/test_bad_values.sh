#!/usr/bin/env bash
# The bad-value corpus (tests/data/bad-values) through the CLI. Each case must end with
# exit status 2 and exactly the message in its .expected file:
#   files/CASE.yaml  from `plan FILE` and from `run FILE` (MPI singleton, no mpirun);
#   flags/CASE.args  the value on --env / --config: from `plan sweeps/smoke.yaml ARGS`
#                    and from `run ARGS` without a sweep file.
# `run` must refuse before any measuring: its results root stays empty. With
# --allow-unknown-values the refused env values plan, and the plan says they were not checked.
# Names on the command line (collectives, dtypes, order, isolation, engine) suggest the nearest.
# Usage: test_bad_values.sh NCCLSWEEP SOURCE_DIR
# `run` starts MPI as a singleton: it runs with NCCLSWEEP_TEST_MPI_ASAN_OPTIONS where
# tests/CMakeLists.txt sets them (no leak checking, which Open MPI's allocations make 3x
# slower; run's refusal is leak-checked under mpirun by the integration [leaks] cases).
set -uo pipefail
export LC_ALL=C  # the invalid-UTF-8 cases hold raw bytes
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=$1
src=$2
mpi_bin=(env "ASAN_OPTIONS=${NCCLSWEEP_TEST_MPI_ASAN_OPTIONS:-${ASAN_OPTIONS:-}}" "$bin")
corpus=tests/data/bad-values
cd "$src" || exit 1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
checked=0

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect_message EXPECTED_FILE COMMAND...: exit 2, stderr exactly the file, no results.
expect_message() {
  local expected=$1
  shift
  local err status
  rm -rf "$work/results" && mkdir "$work/results"
  err=$(timeout 120 "$@" 2>&1 >/dev/null)
  status=$?
  checked=$((checked + 1))
  if [ "$status" -ne 2 ]; then
    fail "$* exited $status, expected 2: ${err:0:600}"
  elif [ "$err" != "$(cat "$expected")" ]; then
    fail "$*: the message differs from $expected:"
    diff <(printf '%s\n' "$err") "$expected"
  elif [ -n "$(ls -A "$work/results")" ]; then
    fail "$*: run wrote under its results root before refusing"
  fi
}

for file in "$corpus"/files/*.yaml; do
  expected=${file%.yaml}.expected
  [ -f "$expected" ] || { fail "$file has no $(basename "$expected")"; continue; }
  expect_message "$expected" "$bin" plan "$file"
  expect_message "$expected" "${mpi_bin[@]}" run "$file" --results-root "$work/results"
done

for args_file in "$corpus"/flags/*.args; do
  expected=${args_file%.args}.expected
  [ -f "$expected" ] || { fail "$args_file has no $(basename "$expected")"; continue; }
  read -r -a args <"$args_file"
  expect_message "$expected" "$bin" plan sweeps/smoke.yaml "${args[@]}"
  expect_message "$expected" "${mpi_bin[@]}" run "${args[@]}" --results-root "$work/results"
done

# allow_unknown_values passes env values (not broken UTF-8, not a field that cannot be swept).
for name in proto-typo algo-typo qps-word level-case; do
  out=$(timeout 60 "$bin" plan "$corpus/files/$name.yaml" --allow-unknown-values 2>&1)
  status=$?
  checked=$((checked + 1))
  if [ "$status" -ne 0 ]; then
    fail "plan $name --allow-unknown-values exited $status: ${out:0:400}"
  elif ! grep -q "note: allow_unknown_values: setting values pass unchecked" <<<"$out"; then
    fail "plan $name --allow-unknown-values does not say the values were not checked"
  fi
done
expect_message "$corpus/files/invalid-utf8.expected" "$bin" plan "$corpus/files/invalid-utf8.yaml" --allow-unknown-values

# Names on the command line get the sweep file's did-you-mean.
expect_suggestion() {  # expect_suggestion TEXT COMMAND...
  local text=$1
  shift
  local err status
  err=$(timeout 60 "$@" 2>&1 >/dev/null)
  status=$?
  checked=$((checked + 1))
  if [ "$status" -ne 2 ] || ! grep -qF -- "$text" <<<"$err"; then
    fail "$* exited $status without '$text': ${err:0:400}"
  fi
}
expect_suggestion "unknown collective 'all_gathr' (did you mean all_gather?)" "${mpi_bin[@]}" run --collectives all_gathr --results-root "$work/results"
expect_suggestion "unknown dtype 'bfloat61' (did you mean bfloat16?)" "${mpi_bin[@]}" run --dtype bfloat61 --results-root "$work/results"
expect_suggestion "(did you mean interleaved?)" "${mpi_bin[@]}" run --order interleavd --results-root "$work/results"
expect_suggestion "(did you mean reinit?)" "$bin" plan sweeps/smoke.yaml --isolation renit
expect_suggestion "--engine: 'ncl' is not one of nccl, mpi (did you mean nccl?)" "$bin" plan sweeps/smoke.yaml --engine ncl
expect_suggestion "(did you mean mpi?)" "$bin" locate --engine mpii
expect_suggestion "(did you mean mpi?)" "$bin" soak --engine mpii
expect_suggestion "(did you mean mpi?)" "$bin" probe --engine mpii

# Flags that contradict each other are refused naming both, not resolved by dropping one.
expect_suggestion "--min-time 2 is above --max-time 0.1" "${mpi_bin[@]}" run --engine mpi --min-time 2 --max-time 0.1 --results-root "$work/results"
expect_suggestion "NCCL_PROTO is given twice, also as --env NCCL_PROTO=LL,Simple" "$bin" plan sweeps/smoke.yaml --env NCCL_PROTO=LL,Simple --env NCCL_PROTO=LL128
expect_suggestion "--workload and --sizes cannot be given together" "${mpi_bin[@]}" diagnose --engine mpi --reference "$work" --plan --workload sweeps/workloads/llama-style-150m-2gpu-fp32.yaml --sizes 1K
expect_suggestion "--workload and --collectives cannot be given together" "${mpi_bin[@]}" diagnose --engine mpi --reference "$work" --plan --workload sweeps/workloads/llama-style-150m-2gpu-fp32.yaml -c all_gather

# Values no rank of the run has, at the line that gives them; a calls block without ranks
# plans at plan's default 2 ranks, as run takes its launch's.
printf 'engine: mpi\ncollectives: [broadcast]\nsizes: [1M]\nroot: 5\n' >"$work/root.yaml"
expect_suggestion "root.yaml:4:7: root 5 is not a rank of this run (2 ranks)" "$bin" plan "$work/root.yaml"
expect_suggestion "root 5 is not a rank of this run (1 ranks)" "${mpi_bin[@]}" run "$work/root.yaml" --results-root "$work/results"
expect_suggestion "--root: root 3 is not a rank of this run (1 ranks)" "${mpi_bin[@]}" run --engine mpi -c broadcast --sizes 1M --root 3 --results-root "$work/results"
printf 'engine: mpi\nsizes: "3"\n' >"$work/tiny.yaml"
expect_suggestion "tiny.yaml:2:8: nothing to measure: every size is below one element per rank" "$bin" plan "$work/tiny.yaml"
printf 'engine: mpi\nsizes:\n  calls:\n    - {collective: all_reduce, bytes: 1M, calls: 3}\n' >"$work/calls.yaml"
if ! out=$("$bin" plan "$work/calls.yaml" 2>&1); then fail "plan of a calls block without ranks: $out"; fi
checked=$((checked + 1))

echo "bad-value corpus: $checked checks, $failures failure(s)"
exit $((failures > 0))
