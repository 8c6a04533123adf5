#!/usr/bin/env bash
# Hostile and broken inputs through the CLI, one case per class of docs/reliability.md
# ("Hostile inputs"). The FIFOs, devices and planted links are made here, at run time.
# Each case runs under a timeout and, unless the binary is sanitized (AddressSanitizer
# reserves terabytes of address space), under a 2 GB address-space limit; each must exit
# 2 naming what it refuses, and every file outside the results directory must stay
# byte-identical (the victims of planted links above all).
# `run` starts MPI as a singleton: it runs with NCCLSWEEP_TEST_MPI_ASAN_OPTIONS where
# tests/CMakeLists.txt sets them (as in test_bad_values.sh).
# Usage: test_hostile_inputs.sh NCCLSWEEP SOURCE_DIR SANITIZED(ON|OFF)
set -uo pipefail
export LC_ALL=C OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=$1
src=$2
sanitized=${3:-OFF}
mpi_bin=(env "ASAN_OPTIONS=${NCCLSWEEP_TEST_MPI_ASAN_OPTIONS:-${ASAN_OPTIONS:-}}" "$bin")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failures=0
checked=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# The bound is on what reading an input may take. `run` starts Open MPI, whose progress
# threads reserve address space per core (a 16-core machine passes 2 GB before reading a
# byte), so a run case gets the timeout only.
limit() {  # limit timeout SECONDS NCCLSWEEP SUBCOMMAND ... (or "${mpi_bin[@]}" run ...)
  if [ "$sanitized" = ON ] || [ "${3:-}" = "${mpi_bin[0]}" ]; then "$@"
  else (ulimit -v 2000000 && exec "$@"); fi
}

# expect CASE NEEDLE COMMAND...: exit 2 within 60 s, stderr holding NEEDLE.
expect() {
  local name=$1 needle=$2
  shift 2
  local err status
  err=$(limit timeout 60 "$@" 2>&1 >/dev/null)
  status=$?
  checked=$((checked + 1))
  if [ "$status" -ne 2 ]; then
    fail "$name: exited $status, expected 2: ${err:0:500}"
  elif ! grep -qF -- "$needle" <<<"$err"; then
    fail "$name: the message lacks '$needle': ${err:0:500}"
  elif grep -q "runtime error:\|AddressSanitizer\|LeakSanitizer" <<<"$err"; then
    fail "$name: a sanitizer reported: ${err:0:500}"
  fi
}

# The victims: what a planted link points at, and inputs that must not change.
mkdir victims
echo precious >victims/target.txt
cp "$src/sweeps/smoke.yaml" victims/smoke.yaml
snapshot() { (cd victims && sha256sum * | sort); }
before=$(snapshot)

# 1. Files that are not regular files, for every reader.
mkfifo fifo.yaml fifo.log fifo.json
mkdir adir
expect "plan FIFO" "is a FIFO" "$bin" plan fifo.yaml
expect "plan /dev/zero" "is a character device" "$bin" plan /dev/zero
expect "plan directory" "is a directory" "$bin" plan adir
expect "sizes --workload FIFO" "is a FIFO" "$bin" sizes --workload fifo.yaml
expect "sizes --from-nccl-log FIFO" "is a FIFO" "$bin" sizes --from-nccl-log fifo.log
expect "sizes --from-torch-trace /dev/urandom" "is a character device" "$bin" sizes --from-torch-trace /dev/urandom
expect "report FIFO" "is a FIFO" "$bin" report fifo.json
expect "compare FIFO" "is a FIFO" "$bin" compare fifo.json fifo.json
printf 'collectives: [all_reduce]\nsizes: {from_nccl_log: %s/fifo.log}\n' "$work" >log-sizes.yaml
expect "sweep from_nccl_log FIFO" "is a FIFO" "$bin" plan log-sizes.yaml
expect "run --verify-recommendation FIFO" "is a FIFO" "${mpi_bin[@]}" run --engine mpi --verify-recommendation fifo.json -o "$work/r-verify"

# A torch trace of millions of tiny events (a small gzip): streamed, in bounded memory
# (fewer events under sanitizers, which make each one slow, not large).
events=3000000
[ "$sanitized" = ON ] && events=300000
python3 - "$events" <<'PY'
import gzip, sys
with gzip.open("tiny-events.json.gz", "wt") as f:
    f.write('{"traceEvents": [' + '{"ph":"X"},' * int(sys.argv[1]) + '{}]}')
PY
expect "torch trace of tiny events" "no communication events" "$bin" sizes --from-torch-trace tiny-events.json.gz

# 2. Numbers that are not numbers.
expect "--threshold nan" "--threshold" "$bin" compare victims/smoke.yaml victims/smoke.yaml --threshold nan
expect "--noise-rel inf" "--noise-rel" "$bin" compare victims/smoke.yaml victims/smoke.yaml --noise-rel inf
expect "--target nan" "--target" "$bin" compare victims/smoke.yaml victims/smoke.yaml --target nan
expect "--slow-threshold -1" "--slow-threshold" "$bin" report victims/smoke.yaml --slow-threshold -1
expect "plan --busbw inf" "--busbw" "$bin" plan victims/smoke.yaml --ranks 8 --busbw inf
# Every fractional number flag of every command, as its --help lists them (FLOAT): NaN
# and infinity are refused before anything starts, naming the flag (CLI11's own range
# check lets NaN through: a NaN threshold or band judges nothing; an INT flag refuses
# them when it converts). Commands with positional inputs get a file each; the flag is
# refused before any is read.
declare -A positionals=([compare]="victims/smoke.yaml victims/smoke.yaml" [report]=victims/smoke.yaml
                        [plan]=victims/smoke.yaml [recommend]=victims/smoke.yaml)
number_flags=0
for sub in $("$bin" --help | awk '/^Subcommands:/ {listed = 1; next} listed && NF {print $1}'); do
  for flag in $("$bin" "$sub" --help | grep -oE '^ +(-[a-zA-Z],)?--[a-z-]+ FLOAT' | grep -oE -- '--[a-z-]+'); do
    number_flags=$((number_flags + 1))
    for value in nan inf; do
      # shellcheck disable=SC2086 # the positionals are words
      expect "$sub $flag $value" "$flag" "${mpi_bin[@]}" "$sub" ${positionals[$sub]:-} "$flag" "$value"
    done
  done
done
[ "$number_flags" -ge 12 ] || fail "only $number_flags FLOAT flags found in the commands' --help: is its format read right?"
cat >table.txt <<'T'
# Collective test starting: all_reduce_perf
#  size  count  type  redop  root  time  algbw  busbw  #wrong  time  algbw  busbw  #wrong
  1024  256  float  sum  -1  abc  0.10  0.19  0  9.0  0.11  0.21  0
# Avg bus bandwidth    : 1
T
expect "nccl-tests time 'abc'" "table.txt:3:30" "$bin" report table.txt
sed 's/^  1024 /  0x100000 /; s/abc/1.0/' table.txt >hex.txt
expect "nccl-tests size 0x100000" "hex.txt:3:3" "$bin" report hex.txt

# 3. YAML edge cases, and the command line's own.
printf 'collectives: [all_reduce]\n---\ncollectives: [all_gather]\n' >two-docs.yaml
expect "two YAML documents" "two-docs.yaml:3" "$bin" plan two-docs.yaml
printf 'env:\n  NCCL_PROTO: [LL, ll]\n' >alike.yaml
expect "LL and ll" "NCCL reads as the same value" "$bin" plan alike.yaml
printf 'env:\n  NCCL_PROTO: ["L\\0L\\e[31m"]\n' >nul.yaml
expect "NUL in a value" 'control character' "$bin" plan nul.yaml
expect "unknown subcommand" "did you mean" "$bin" rnu

# 4. The results directory: planted links refused, nothing written through them.
expect "-o empty" "empty value" "${mpi_bin[@]}" run --engine mpi -s 1K -o ""
expect "--resume empty" "empty value" "${mpi_bin[@]}" run --engine mpi -s 1K --resume ""
for name in records.jsonl run.json.tmp summary.md; do
  mkdir -p "planted-$name"
  ln -s "$work/victims/target.txt" "planted-$name/$name"
  expect "planted $name in a fresh -o" "planted-$name/$name is a symbolic link" \
    "${mpi_bin[@]}" run --engine mpi -s 1K --iters 2 --warmup 1 -o "planted-$name"
done
# A real run to resume, then a link planted in it.
if limit timeout 120 "${mpi_bin[@]}" run --engine mpi -s 1K,2K --iters 2 --warmup 1 -o done-run >/dev/null 2>&1; then
  cp -r done-run resume-link && rm resume-link/records.jsonl
  ln -s "$work/victims/target.txt" resume-link/records.jsonl
  expect "planted records.jsonl on --resume" "records.jsonl is a symbolic link" \
    "${mpi_bin[@]}" run --engine mpi -s 1K,2K --iters 2 --warmup 1 --resume resume-link
  cp -r done-run resume-missing && rm resume-missing/records.jsonl
  expect "--resume without records.jsonl" "records.jsonl is missing" \
    "${mpi_bin[@]}" run --engine mpi -s 1K,2K --iters 2 --warmup 1 --resume resume-missing
  cp -r done-run resume-twice && head -1 done-run/records.jsonl >>resume-twice/records.jsonl
  expect "--resume with a record twice" "hold the same measurement" \
    "${mpi_bin[@]}" run --engine mpi -s 1K,2K --iters 2 --warmup 1 --resume resume-twice
else
  fail "a plain --engine mpi run failed, so the resume cases could not run"
fi

# 5. Testing aids aimed at nothing.
expect "--inject-fault rank 7 of 1" "rank 7" "${mpi_bin[@]}" run --engine mpi -s 1K --inject-fault 7:exit -o "$work/r-fault"
expect "--inject-fault unknown point" "does not have" "${mpi_bin[@]}" run --engine mpi -s 1K --inject-fault 0:exit@nowhere -o "$work/r-point"

[ "$(snapshot)" = "$before" ] || fail "a file outside the results directories changed: $(diff <(echo "$before") <(snapshot))"
echo "hostile inputs: $checked cases, $failures failure(s)"
exit $((failures > 0))
