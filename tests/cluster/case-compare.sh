#!/usr/bin/env bash
# compare across 4 emulated hosts x 2 ranks: runs with h2's link limited by tc against
# runs without. On the world (every size crosses hosts) every row is slower; on
# intra-node groups (each group inside one host, its traffic never on a link) no row is
# slower or faster: the same, or ambiguous or unresolved where the machine's load moved
# the repeats apart.
# Usage: case-compare.sh NCCLSWEEP SOURCE_DIR
. "$(dirname "$0")/case-lib.sh"
case_init compare "$1" "$2" --hosts 4 --slots 2

rate=100mbit
# 8 ranks on 2 cores: the CPU's share decides intra-host timing, and it moves between two
# launches by far more than on a GPU node. Each side repeats its sizes 3 times
# interleaved, so compare's band is the spread those repeats measured (up to 50% with
# other work on the machine: --max-band 0.6, not 0.25), and never under 30%: with other
# work on the machine, two launches' intra-node groups read up to 71% apart, the later
# one faster (its band and the other's together must exceed that before a row is called
# faster or slower). A leak of the fault into intra-host traffic would still show:
# 100 mbit/s slows what crosses it about ten-fold (the world's rows read 89-96% slower),
# where the intra-node rows' band is 30-60%. The two intra-node launches run back to
# back, so a spell of load is likelier to touch both.
# Intra-node groups are measured at larger sizes, whose calls take tens of milliseconds:
# a rank that waits for a core (a scheduler slice of some milliseconds) moves them less.
# Each measurement stops at 0.25 s (half the default): the launch's time is its 12
# measurements, and what moves the rows apart is load between launches, not a measurement's length.
run_side() {
  bed_run 8 run --engine mpi --collectives all_reduce --sizes "$3" --warmup 2 --max-time 0.25 --groups "$1" \
    --repeats 3 --order interleaved -o "$PWD/$2" -q || { fail "run --groups $1 ($2) exited $?"; cat "$out_log"; }
}
# compare_sides NEW REF: compare's exit status in $status, its rows in $rows
# ("size placement verdict change; ..."). The rows' verdicts are what this case judges,
# so the acceptance gate is off (--target 0): with a 30% band it would rightly say
# UNRESOLVED (exit 5) for the unaffected intra-node rows.
compare_sides() {
  "$bin" compare "$1" "$2" --noise-rel 0.3 --max-band 0.6 --target 0 --format json >"$1.compare.json" 2>"$1.compare.err"
  status=$?
  rows=$(json "$1.compare.json" '"; ".join("%s %s %s %+.0f%%" % (r["size_bytes"], r["placement"], r["verdict"], 100 * (r["ratio"] - 1)) for r in d["rows"])')
}
# all_rows NEW 'VERDICT|VERDICT': True when each of the 4 rows has one of them.
all_rows() { json "$1.compare.json" "all(r['verdict'] in '$2'.split('|') for r in d['rows']) and len(d['rows']) == 4"; }

step "clean runs: world, intra-node"
run_side world clean-world 64K,256K
run_side intra-node clean-intra 1M,4M
"$bed" fault link h2 "$rate"
step "runs with h2's link limited: intra-node, world"
run_side intra-node fault-intra 1M,4M
run_side world fault-world 64K,256K
"$bed" fault clear >/dev/null

step "compare"
compare_sides fault-world clean-world
say_verdict "world (crosses hosts), h2's link at $rate: exit $status: $rows"
[ "$status" -eq 1 ] && [ "$(all_rows fault-world slower)" = True ] ||
  fail "world with h2's link limited: every row should be slower (exit 1)"
compare_sides fault-intra clean-intra
say_verdict "intra-node groups (inside hosts), h2's link at $rate: exit $status: $rows"
[ "$status" -eq 0 ] && [ "$(all_rows fault-intra 'same|ambiguous|unresolved')" = True ] ||
  fail "intra-node groups with h2's link limited: no row should be slower or faster (exit 0)"
case_finish
