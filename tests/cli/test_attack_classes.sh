#!/usr/bin/env bash
# The attack classes of docs/reliability.md ("Hostile inputs") through the CLI, with
# inputs made here at run time: caps before the work they would cost, kernel files,
# messages that input cannot split, numbers read back, a collective named twice, lost
# output (exit 3 with the reason), MPI start-up in a bad TMPDIR, and the memory limit of
# a real cgroup where this machine lets the test make one. Each case under a timeout.
# `run` starts MPI as a singleton: it runs with NCCLSWEEP_TEST_MPI_ASAN_OPTIONS where
# tests/CMakeLists.txt sets them (as in test_hostile_inputs.sh).
# Usage: test_attack_classes.sh NCCLSWEEP SOURCE_DIR
set -uo pipefail
export LC_ALL=C OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=$1
src=$2
mpi_bin=(env "ASAN_OPTIONS=${NCCLSWEEP_TEST_MPI_ASAN_OPTIONS:-${ASAN_OPTIONS:-}}" "$bin")
work=$(mktemp -d)
cgroup=""
cleanup() {
  [ -n "$cgroup" ] && rmdir "$cgroup" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
cd "$work" || exit 1
failures=0
checked=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# expect CASE STATUS NEEDLE COMMAND...: that exit status within 60 s, stderr holding NEEDLE.
expect() {
  local name=$1 want=$2 needle=$3
  shift 3
  local err status
  err=$(timeout 60 "$@" 2>&1 >/dev/null)
  status=$?
  checked=$((checked + 1))
  if [ "$status" -ne "$want" ]; then
    fail "$name: exited $status, expected $want: ${err:0:600}"
  elif ! grep -qF -- "$needle" <<<"$err"; then
    fail "$name: the message lacks '$needle': ${err:0:600}"
  elif grep -q "runtime error:\|AddressSanitizer\|LeakSanitizer" <<<"$err"; then
    fail "$name: a sanitizer reported: ${err:0:600}"
  fi
}

cp "$src/sweeps/smoke.yaml" smoke.yaml
quick=(run --engine mpi --iters 1 --warmup 0)

# A finished run to read back, and copies of it made hostile below.
if ! timeout 120 "${mpi_bin[@]}" "${quick[@]}" -c all_reduce -s 1K,2K -o done-run >/dev/null 2>&1; then
  fail "a plain --engine mpi run failed, so the results cases cannot run"
fi

# 1. Caps before the work: lines, values, nesting, documents, lists and grids.
python3 - <<'PY'
import json, os
line = open("done-run/records.jsonl").readline()
os.makedirs("long-line", exist_ok=True)
with open("long-line/records.jsonl", "w") as f:
    f.write(line)
    f.write('{"pad": "' + "x" * (20 << 20) + '"}\n')
    f.write(line)
os.makedirs("deep-line", exist_ok=True)
with open("deep-line/records.jsonl", "w") as f:
    f.write(line)
    f.write('{"a": ' + "[" * 5000 + "]" * 5000 + "}\n")
run = json.load(open("done-run/run.json"))
for d in ("long-line", "deep-line"):
    r = dict(run, status="incomplete", records=[])
    json.dump(r, open(d + "/run.json", "w"))
os.makedirs("many-values", exist_ok=True)
with open("many-values/run.json", "w") as f:
    f.write('{"schema_version": 1, "pad": [' + "0," * (5 << 20) + "0]}")
with open("many-docs.yaml", "w") as f:
    f.write("collectives: [all_reduce]\n" + "---\n" * ((4 << 20) - 16))  # just under the 16 MiB cap
PY
start=$SECONDS
expect "records.jsonl line of 20 MiB" 2 "long-line/records.jsonl:2" "$bin" report long-line
expect "a JSON line nested 5000 deep" 2 "nests deeper than 64" "$bin" report deep-line
expect "run.json of 5 Mi numbers" 2 "values, more than its reader takes" "$bin" report many-values
expect "16 MiB of YAML documents" 2 "many-docs.yaml:2" "$bin" plan many-docs.yaml
printf 'collectives: all\ndtypes: [int8, uint8, int32, uint32, int64, uint64, float16, float32, float64, bfloat16]\nsizes: 1:10000:+1\nbuffer_footprint: [largest, exact, 1G, 2G, 4G]\n' >grid.yaml
expect "a grid of millions of measurements" 2 "grid.yaml:3" "$bin" plan grid.yaml --ranks 8
[ $((SECONDS - start)) -lt 120 ] || fail "the cap cases took $((SECONDS - start)) s: the work came before the refusal"

# 2. Kernel file systems: refused before the file is opened (reading /proc/kmsg would
# block, and empty the kernel log).
expect "plan /proc/self/status" 2 "is on /proc (procfs), a kernel interface" "$bin" plan /proc/self/status
expect "sizes --from-nccl-log /proc/self/maps" 2 "a kernel interface" "$bin" sizes --from-nccl-log /proc/self/maps
if [ -e /proc/kmsg ]; then
  expect "report /proc/kmsg" 2 "a kernel interface" "$bin" report /proc/kmsg
fi
if [ -d /sys/kernel ]; then
  f=$(find /sys/kernel -maxdepth 2 -type f -readable 2>/dev/null | head -1)
  [ -n "$f" ] && expect "plan $f" 2 "is on /sys (sysfs)" "$bin" plan "$f"
fi

# 3. A newline in a path or value: one error line and its fix line, nothing forged.
name=$'bad\nncclsweep: error: forged.yaml'
printf 'collectives: [no_such_collective]\n' >"$name"
err=$(timeout 60 "$bin" plan "$name" 2>&1 >/dev/null)
checked=$((checked + 1))
[ "$(printf '%s\n' "$err" | wc -l)" -eq 2 ] || fail "a newline in a path split the message: $err"
grep -qF 'bad\x0ancclsweep: error: forged.yaml' <<<"$err" || fail "the path's newline is not shown escaped: $err"

# 4. Numbers read back, range-checked like numbers from flags; testing aids aimed at nothing.
mkdir -p negative-count
cp done-run/run.json negative-count/run.json
python3 - <<'PY'
import json
d = json.load(open("negative-count/run.json"))
d["records"][0]["count"] = -256
json.dump(d, open("negative-count/run.json", "w"))
PY
expect "a record's count of -256" 2 "count is -256, below 0" "$bin" report negative-count
expect "--inject-corrupt-rank 99 of 1" 2 "--inject-corrupt-rank names rank 99" \
  "${mpi_bin[@]}" "${quick[@]}" -s 1K --inject-corrupt-rank 99 -o corrupt-99

# 5. A collective named twice is measured once.
if timeout 120 "${mpi_bin[@]}" "${quick[@]}" -c all_reduce,broadcast,all_reduce -s 1K -o twice >/dev/null 2>&1; then
  n=$(grep -c '"collective":"all_reduce"' twice/records.jsonl)
  [ "$n" -eq 2 ] || fail "all_reduce named twice: $n records, expected 2 (out-of-place and in-place)"
else
  fail "the run with a collective named twice failed"
fi
checked=$((checked + 1))

# 6. Output lost: exit 3 with the reason, for every kind of output.
expect "plan > /dev/full" 3 "writing standard output failed: No space left on device" \
  sh -c 'exec "$0" plan smoke.yaml >/dev/full' "$bin"
expect "plan with stdout closed" 3 "standard output is closed" sh -c 'exec "$0" plan smoke.yaml >&-' "$bin"
expect "report -o /dev/full" 3 "writing /dev/full" "$bin" report done-run -o /dev/full
expect "compare -o /dev/full" 3 "writing /dev/full" "$bin" compare done-run done-run -o /dev/full
expect "run > /dev/full" 3 "writing standard output failed" \
  sh -c 'exec "$@" >/dev/full' sh "${mpi_bin[@]}" "${quick[@]}" -s 1K -o full-stdout
[ -s full-stdout/records.jsonl ] || fail "run > /dev/full: the results files should still be complete"

# 7. MPI start-up: a TMPDIR Open MPI cannot use gets a line that says what to set.
# (A TMPDIR that is missing but can be made is made, by Open MPI as by mkdir -p: no refusal.)
echo "not a directory" >plain-file
expect "TMPDIR below a plain file" 3 "set TMPDIR to a writable local directory" \
  env TMPDIR="$work/plain-file/tmp" "${mpi_bin[@]}" "${quick[@]}" -s 1K -o tmpdir-file
mkdir ro-tmp
if mount -t tmpfs -o ro,size=1m tmpfs ro-tmp 2>/dev/null; then
  expect "TMPDIR read-only" 3 "is on a read-only file system" \
    env TMPDIR="$work/ro-tmp" "${mpi_bin[@]}" "${quick[@]}" -s 1K -o tmpdir-ro
  expect "TMPDIR to be made on a read-only file system" 3 "it would be made in $work/ro-tmp" \
    env TMPDIR="$work/ro-tmp/sub/dir" "${mpi_bin[@]}" "${quick[@]}" -s 1K -o tmpdir-ro-sub
  umount ro-tmp
else
  echo "note: cannot mount a read-only tmpfs here (not root, or a container without the right): that case skipped"
fi

# 8. The memory limit of a real cgroup (v1 memory controller or v2 with memory enabled):
# 1 GiB buffers do not fit 1.5 GiB, however large the node.
for base in /sys/fs/cgroup/memory /sys/fs/cgroup; do
  [ -w "$base" ] || continue
  if [ -e "$base/memory.limit_in_bytes" ] || grep -qw memory "$base/cgroup.subtree_control" 2>/dev/null; then
    cgroup="$base/ncclsweep-test-$$"
    mkdir "$cgroup" 2>/dev/null || { cgroup=""; continue; }
    limit_file=memory.max
    [ -e "$cgroup/memory.limit_in_bytes" ] && limit_file=memory.limit_in_bytes
    if echo 1610612736 >"$cgroup/$limit_file" 2>/dev/null; then
      expect "1 GiB buffers in a 1.5 GiB cgroup" 2 "memory limit of this job's cgroup, 1.5 GiB" \
        sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$cgroup" "${mpi_bin[@]}" "${quick[@]}" -c all_reduce -s 1G -o in-cgroup
    fi
    break
  fi
done
[ -n "$cgroup" ] || echo "note: no writable cgroup memory controller here: the real-cgroup case skipped (the unit test reads fake trees)"

echo "attack classes: $checked cases, $failures failure(s)"
exit $((failures > 0))
