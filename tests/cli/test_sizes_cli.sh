#!/usr/bin/env bash
# `ncclsweep sizes` end to end: the acceptance numbers, and exit status 2 with the
# file named for bad input. Usage: test_sizes_cli.sh NCCLSWEEP SOURCE_DIR
set -uo pipefail
bin=$1
cd "$2" || exit 1
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

json=$("$bin" sizes --model llama3-8b --dp 64 --dp-style fsdp --param-dtype bfloat16 --grad-dtype float32 --format json) \
  || fail "acceptance command exited $?"
grep -q '"bytes": 436224000' <<<"$json" || fail "no AllGather of 436224000 B"
grep -q '"bytes": 872448000' <<<"$json" || fail "no ReduceScatter of 872448000 B"

yaml=$("$bin" sizes --workload configs/workloads/nemotron4-15b-h100-512.yaml --format yaml) || fail "workload exited $?"
grep -q '^sizes:$' <<<"$yaml" || fail "yaml has no sizes: block"
grep -q '^  calls:$' <<<"$yaml" || fail "yaml has no calls: list"
grep -q '^    - {collective: all_gather, bytes: [0-9]*, dtype: bfloat16, group: dp-cp' <<<"$yaml" \
  || fail "yaml lists no all_gather on its dp-cp group"
# The yaml is a sweep's sizes block: plan reads it back and measures each call on its group.
sweep=$(mktemp) && trap 'rm -f "$sweep"' EXIT
printf 'engine: mpi\n%s\n' "$yaml" >"$sweep"
planned=$("$bin" plan "$sweep" 2>&1) || fail "plan of the sizes yaml exited $?: $planned"
grep -q 'as measured on 512 ranks' <<<"$planned" || fail "plan does not take the yaml's 512 ranks: $planned"
grep -q 'all_gather .* on dp-cp 256 (stride 2)' <<<"$planned" || fail "plan does not measure all_gather on dp-cp 256"

# Bad input: exit 2 and a message naming what is wrong.
expect_usage_error() {
  local needle=$1; shift
  local err
  err=$("$bin" sizes "$@" 2>&1 >/dev/null); local status=$?
  [ "$status" -eq 2 ] || fail "sizes $* exited $status, expected 2"
  grep -qF -- "$needle" <<<"$err" || fail "sizes $*: message lacks '$needle': $err"
}
expect_usage_error "unknown model 'llama9'" --model llama9
expect_usage_error "is not the rank count 100" --model llama3-8b --dp 64 --gpus 100
expect_usage_error "no file matches 'tests/data/none-*.log'" --from-nccl-log 'tests/data/none-*.log'
expect_usage_error "tests/data/nccl_log_without_coll.log" --from-nccl-log tests/data/nccl_log_without_coll.log
expect_usage_error "tests/data/not_a_trace.json" --from-torch-trace tests/data/not_a_trace.json
expect_usage_error "--iterations" --from-nccl-log 'tests/data/nccl_log/*.log' --iterations 0
expect_usage_error "give exactly one source" --model llama3-8b --from-inspector 'tests/data/inspector/*.log'

[ "$failures" -eq 0 ] && echo "sizes CLI: all checks passed"
exit "$failures"
