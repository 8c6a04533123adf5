#!/usr/bin/env bash
# locate on 4 emulated hosts x 2 ranks against faults made with tc outside ncclsweep:
# one host's link limited (only that host named), the traffic between two hosts limited
# (named as that link, its two hosts, and nothing else), two hosts' links limited (both
# named, though most pairs are slow), and a clean fabric (nothing named, three launches
# running).
# Usage: case-locate.sh NCCLSWEEP SOURCE_DIR
. "$(dirname "$0")/case-lib.sh"
case_init locate "$1" "$2" --hosts 4 --slots 2

# As tests/integration/test_locate_launch.cpp: 8 ranks on 2 cores time noisily, so every
# pair's repeats are spread over 5 passes, and 0.25 is the threshold. The limit, 400
# mbit/s each way, puts the limited pairs at 0.05-0.07 of the others' here, twice below
# what the noisiest of these runs told from noise (0.15 at 160 mbit/s, where the pairs
# read 0.02-0.03); the slower the limit, the longer the tournament's limited pairs take:
# the case took 21-23 s at 400 mbit/s, 30 s at 200 (0.03), 45 s at 100 (0.015).
rate=400mbit
locate() {
  local dir=$1
  bed_run 8 locate --engine mpi --sizes 256K --warmup 5 --iters 20 --repeats 1 --passes 5 --threshold 0.25 -o "$PWD/$dir"
  local status=$?
  found=$(json "$dir/run.json" '"; ".join("%s %s" % (f["kind"], ",".join(f["hosts"])) for f in d["verdicts"]["findings"])' 2>&1)
  return $status
}

for i in 1 2 3; do
  step "locate on a clean fabric ($i of 3)"
  locate "clean-$i"
  status=$?
  say_verdict "clean fabric, launch $i: exit $status, named '${found}'"
  [ "$status" -eq 0 ] && [ -z "$found" ] || fail "clean fabric, launch $i: named '$found' (exit $status), expected nothing"
done

"$bed" fault link h3 "$rate"
step "locate with h3's link limited"
locate link-h3
status=$?
say_verdict "h3's link at $rate: exit $status, named '$found'"
[ "$status" -eq 1 ] && [ "$found" = "host h3" ] || fail "h3's link limited: named '$found' (exit $status), expected 'host h3' only"
"$bed" fault clear >/dev/null

"$bed" fault pair h1 h2 "$rate"
step "locate with the traffic between h1 and h2 limited"
locate pair-h1-h2
status=$?
say_verdict "h1<->h2 at $rate: exit $status, named '$found'"
[ "$status" -eq 1 ] && [ "$found" = "link h1,h2" ] || fail "h1<->h2 limited: named '$found' (exit $status), expected 'link h1,h2' only"
"$bed" fault clear >/dev/null

# Two slow hosts of four: five of six pairs slow, so the median pair is a slow one, and
# only h3-h4 shows the level the fabric reaches.
"$bed" fault link h1 "$rate"
"$bed" fault link h2 "$rate"
step "locate with h1's and h2's links limited"
locate links-h1-h2
status=$?
say_verdict "h1 and h2's links at $rate: exit $status, named '$found'"
[ "$status" -eq 1 ] && [ "$found" = "host h1; host h2" ] || fail "h1 and h2 limited: named '$found' (exit $status), expected 'host h1; host h2' only"
case_finish
