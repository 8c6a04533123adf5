#!/usr/bin/env bash
# run and report across 4 emulated hosts x 2 ranks (mpirun through the bed's rsh agent):
# every rank's host and local rank, the groups a host's ranks form, and report's
# per-node view; a round-robin placement refused for intra-node groups, naming it.
# Usage: case-run-report.sh NCCLSWEEP SOURCE_DIR
. "$(dirname "$0")/case-lib.sh"
case_init run-report "$1" "$2" --hosts 4 --slots 2
say_fault "none (a clean fabric): this case checks where ranks are, not how fast"

# Rank r sits on host h(r/2+1) as its local rank r%2: the hostfile gives 2 slots per host.
expected_layout='[(r, "h%d" % (r // 2 + 1), r % 2) for r in range(8)]'
check_layout() {
  local dir=$1 what=$2
  local got
  got=$(json "$dir/run.json" '[(x["rank"], x["host"], x["local_rank"]) for x in d["ranks"]]')
  if [ "$got" = "$(python3 -c "print($expected_layout)")" ]; then
    say_verdict "$what: ranks on hosts with local ranks $got"
  else
    fail "$what: ranks (rank, host, local rank) $got, expected $(python3 -c "print($expected_layout)")"
  fi
  [ "$(json "$dir/run.json" 'd["hosts"]')" = "['h1', 'h2', 'h3', 'h4']" ] ||
    fail "$what: hosts $(json "$dir/run.json" 'd["hosts"]'), expected h1-h4"
  [ "$(json "$dir/run.json" 'd["status"]')" = complete ] || fail "$what: status $(json "$dir/run.json" 'd["status"]')"
}

# 1. The world and the two host-shaped group kinds.
for groups in world intra-node inter-node; do
  step "run --groups $groups on 8 ranks"
  if bed_run 8 run --engine mpi --collectives all_reduce,all_gather --sizes 64K,256K --iters 3 --warmup 1 \
    --groups "$groups" -o "$PWD/run-$groups" -q; then
    check_layout "run-$groups" "run --groups $groups"
  else
    fail "run --groups $groups exited $?"; cat "$out_log"; continue
  fi
  # Each record: how many groups ran at once, and how many ranks each held.
  shape=$(json "run-$groups/run.json" 'sorted({(r.get("communicators", 1), r["ranks"]) for r in d["records"]})')
  case $groups in
    world) want="[(1, 8)]" ;;
    intra-node) want="[(4, 2)]" ;;  # one group per host, its two ranks
    inter-node) want="[(2, 4)]" ;;  # one group per local rank, one rank on each host
  esac
  [ "$shape" = "$want" ] && say_verdict "run --groups $groups: (groups, ranks each) $shape" ||
    fail "run --groups $groups: (groups, ranks each) $shape, expected $want"
  grep -q '#  Rank   5 on h3' "$out_log" || fail "run --groups $groups: the header does not put rank 5 on h3"
done

# 2. report's per-node view: the hosts and the ranks of each.
step "report --nodes only --format json"
if "$bin" report run-inter-node --nodes only --format json >nodes.json 2>report.err; then
  nodes=$(json nodes.json '[(n["host"], n["ranks"]) for n in d["nodes"]]')
  want="[('h1', [0, 1]), ('h2', [2, 3]), ('h3', [4, 5]), ('h4', [6, 7])]"
  [ "$nodes" = "$want" ] && say_verdict "report per node: $nodes" || fail "report per node: $nodes, expected $want"
else
  fail "report --nodes only exited $?"; cat report.err
fi
step "report (table)"
"$bin" report run-world >report.txt 2>&1 || fail "report exited $?"
grep -Eq '^  h4 .* 6-7 \(2\)' report.txt && say_verdict "report table: per-node view lists h4 with ranks 6-7" ||
  { fail "report's table has no per-node line for h4 with ranks 6-7"; cat report.txt; }

# 3. Round-robin placement (mpirun --map-by node: rank r on host r%4) cannot form
# intra-node blocks: refused before measuring, saying why and how to place the ranks.
step "run --groups intra-node with --map-by node"
bed_run 8 --map-by node -- run --engine mpi --collectives all_reduce --sizes 64K --iters 2 --groups intra-node \
  -o "$PWD/round-robin" -q
status=$?
if [ "$status" -eq 2 ] && grep -q 'equal blocks per node' "$out_log" && grep -q 'not --map-by node' "$out_log"; then
  say_verdict "round-robin placement: exit 2, '$(grep -m1 'error:' "$out_log")'"
else
  fail "round-robin placement with intra-node groups: exit $status, expected 2 naming the placement"; cat "$out_log"
fi
case_finish
