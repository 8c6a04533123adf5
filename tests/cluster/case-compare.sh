#!/usr/bin/env bash
# compare across 4 emulated hosts x 2 ranks: runs with h2's link limited by tc against
# runs without. On the world (every size crosses hosts) every row is slower; on
# intra-node groups (each group inside one host, its traffic never on a link) every row
# is the same.
# Usage: case-compare.sh NCCLSWEEP SOURCE_DIR
. "$(dirname "$0")/case-lib.sh"
case_init compare "$1" "$2" --hosts 4 --slots 2

rate=40mbit
# 8 ranks on 2 cores: the CPU's share decides intra-host timing, and it moves between two
# launches by far more than on a GPU node; each side repeats its sizes 3 times
# interleaved, so compare's band is the spread those repeats measured.
run_side() {
  bed_run 8 run --engine mpi --collectives all_reduce --sizes 64K,1M --groups "$1" --repeats 3 --order interleaved \
    -o "$PWD/$2" -q || { fail "run --groups $1 ($2) exited $?"; cat "$out_log"; }
}
# verdicts NEW REF: "size placement verdict" per row, and compare's exit status in $status.
verdicts() {
  "$bin" compare "$1" "$2" --format json >"$1.compare.json" 2>"$1.compare.err"
  status=$?
  json "$1.compare.json" '"; ".join("%s %s %s %+.0f%%" % (r["size_bytes"], r["placement"], r["verdict"], 100 * (r["ratio"] - 1)) for r in d["rows"])'
}
all_rows() { json "$1.compare.json" "all(r['verdict'] == '$2' for r in d['rows']) and len(d['rows']) == 4"; }

step "clean runs: world, intra-node"
run_side world clean-world
run_side intra-node clean-intra
"$bed" fault link h2 "$rate"
step "runs with h2's link limited: world, intra-node"
run_side world fault-world
run_side intra-node fault-intra
"$bed" fault clear >/dev/null

step "compare"
rows=$(verdicts fault-world clean-world)
say_verdict "world (crosses hosts), h2's link at $rate: exit $status: $rows"
[ "$status" -eq 1 ] && [ "$(all_rows fault-world slower)" = True ] ||
  fail "world with h2's link limited: every row should be slower (exit 1)"
rows=$(verdicts fault-intra clean-intra)
say_verdict "intra-node groups (inside hosts), h2's link at $rate: exit $status: $rows"
[ "$status" -eq 0 ] && [ "$(all_rows fault-intra same)" = True ] ||
  fail "intra-node groups with h2's link limited: every row should be the same (exit 0)"
case_finish
