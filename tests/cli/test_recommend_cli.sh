#!/usr/bin/env bash
# `ncclsweep recommend` and `run --verify-recommendation` through the binary: the exports
# equal the golden files the unit tests check, -o writes the same bytes, and bad input
# exits 2 naming what is wrong. Usage: test_recommend_cli.sh NCCLSWEEP SOURCE_DIR
set -uo pipefail
bin=$1
cd "$2" || exit 1
data=tests/data/recommend
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

same_as_golden() {
  local golden=$1; shift
  "$bin" recommend "$@" >"$tmp/out" 2>"$tmp/err" || fail "recommend $* exited $?: $(cat "$tmp/err")"
  cmp -s "$tmp/out" "$data/golden/$golden" || fail "recommend $* differs from $golden: $(diff "$tmp/out" "$data/golden/$golden" | head -5)"
}
same_as_golden clear-winner.txt "$data/clear-winner"
same_as_golden clear-winner.conf "$data/clear-winner" --format nccl-tuner
same_as_golden clear-winner.export.env "$data/clear-winner/run.json" --format env --env-style export
same_as_golden clear-winner.json "$data/clear-winner" --format json
same_as_golden mixed.yaml "$data/mixed" -f yaml
same_as_golden qps-workload.container.env "$data/qps-workload" --format env --env-style container

"$bin" recommend "$data/mixed" --format nccl-tuner -o "$tmp/rules.conf" || fail "recommend -o exited $?"
cmp -s "$tmp/rules.conf" "$data/golden/mixed.conf" || fail "-o wrote other bytes than stdout"

# A winner that loses at another size is no job-wide export: exit 2, nothing on stdout,
# the disagreeing bands named and the per-size export offered.
for style in plain container; do
  "$bin" recommend "$data/band-split" --format env --env-style $style >"$tmp/out" 2>"$tmp/err"; status=$?
  [ "$status" -eq 2 ] || fail "band-split --env-style $style exited $status, expected 2"
  [ ! -s "$tmp/out" ] || fail "band-split exported something: $(cat "$tmp/out")"
  grep -qF "NCCL_PROTO=LL loses at all_gather 64 MiB" "$tmp/err" || fail "band-split: no disagreeing band: $(cat "$tmp/err")"
  grep -qF -- "--format nccl-tuner" "$tmp/err" || fail "band-split: no per-size export offered"
done
"$bin" recommend "$data/band-split" --format nccl-tuner >"$tmp/out" || fail "band-split --format nccl-tuner exited $?"
grep -q '^allgather,1048576,16777216,ring,ll,' "$tmp/out" || fail "band-split: no per-size rule: $(cat "$tmp/out")"

# A variable a tuner cannot set (4 QPs win the bucket sizes, lose at 1 MiB): the env
# refusal names the per-job export, the tuner file names the same, and following it
# exports the variable. No refusal points back to a command that refuses or writes nothing.
"$bin" recommend "$data/qps-grid" --format env >"$tmp/out" 2>"$tmp/err"; status=$?
[ "$status" -eq 2 ] || fail "qps-grid --format env exited $status, expected 2"
grep -qF -- "--format env --job-sizes 256M,1G exports NCCL_IB_QPS_PER_CONNECTION=4" "$tmp/err" \
  || fail "qps-grid: no per-job export offered: $(cat "$tmp/err")"
! grep -qF -- "nccl-tuner" "$tmp/err" || fail "qps-grid: refers to the tuner, which writes no rule: $(cat "$tmp/err")"
"$bin" recommend "$data/qps-grid" --format nccl-tuner >"$tmp/out" || fail "qps-grid --format nccl-tuner exited $?"
grep -q '^# no rule: .*--format env --job-sizes 256M,1G$' "$tmp/out" || fail "qps-grid tuner: no per-job pointer: $(cat "$tmp/out")"
"$bin" recommend "$data/qps-grid" --format env --job-sizes 256M,1G --env-style export >"$tmp/out" 2>"$tmp/err" \
  || fail "qps-grid --job-sizes 256M,1G exited $?: $(cat "$tmp/err")"
grep -qx 'export NCCL_IB_QPS_PER_CONNECTION=4' "$tmp/out" || fail "qps-grid per job: not exported: $(cat "$tmp/out")"
grep -q '^# exported: NCCL_IB_QPS_PER_CONNECTION=4: wins at all_gather 256 MiB .. 1 GiB' "$tmp/out" \
  || fail "qps-grid per job: the bands are not named: $(cat "$tmp/out")"

expect_usage_error() {
  local needle=$1; shift
  local err
  # `run` starts MPI as a singleton: NCCLSWEEP_TEST_MPI_ASAN_OPTIONS (tests/CMakeLists.txt says why).
  local asan=${ASAN_OPTIONS:-}
  [ "$1" = run ] && asan=${NCCLSWEEP_TEST_MPI_ASAN_OPTIONS:-$asan}
  err=$(ASAN_OPTIONS=$asan "$bin" "$@" 2>&1 >/dev/null); local status=$?
  [ "$status" -eq 2 ] || fail "$* exited $status, expected 2"
  grep -qF -- "$needle" <<<"$err" || fail "$*: message lacks '$needle': $err"
}
expect_usage_error "--format: 'csv' is not one of table, env, nccl-tuner, yaml, json" recommend "$data/mixed" --format csv
expect_usage_error "--env-style: 'docker' is not one of plain, export, container" recommend "$data/mixed" --format env --env-style docker
expect_usage_error "names no point" recommend "$data/mixed" --baseline nope
expect_usage_error "--job-sizes 'allgather:1M'" recommend "$data/mixed" --format env --job-sizes allgather:1M
expect_usage_error "--job-sizes '0': 0 bytes is not a size a job sends" recommend "$data/mixed" --job-sizes 0
expect_usage_error "--job-sizes 'all_gather:0'" recommend "$data/mixed" --format env --job-sizes all_gather:0
# One run twice, or a copy of it, would count its figures as two runs' support.
expect_usage_error "is the same run as $data/mixed" recommend "$data/mixed" "$data/mixed/run.json"
cp -r "$data/mixed" "$tmp/mixed-copy"
expect_usage_error "$tmp/mixed-copy is the same run as $data/mixed" recommend "$data/mixed" "$tmp/mixed-copy"
expect_usage_error "recommend from runs at one scale" recommend "$data/mixed" "$data/qps-grid"
expect_usage_error "cannot read $data/none" recommend "$data/none"
printf 'allgather,0,100,ring,lx,-1,-1,-1\n' >"$tmp/bad.conf"
expect_usage_error "bad.conf:1:1: unknown protocol 'lx'" run --engine mpi --verify-recommendation "$tmp/bad.conf"
printf 'NCCL_X\n' >"$tmp/bad.env"
expect_usage_error "'NCCL_X' is not KEY=VALUE" run --engine mpi --verify-recommendation "$tmp/bad.env"

[ "$failures" -eq 0 ] && echo "recommend CLI: all checks passed"
exit "$failures"
