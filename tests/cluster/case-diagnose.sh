#!/usr/bin/env bash
# diagnose on 5 emulated hosts x 1 rank against a clean reference run: a clean bed names
# no fault on any layer; with h3's link limited by tc outside ncclsweep, the hosts and
# links layer is the cause and names h3, and no other layer names a host or is a cause.
# Usage: case-diagnose.sh NCCLSWEEP SOURCE_DIR
. "$(dirname "$0")/case-lib.sh"
case_init diagnose "$1" "$2" --hosts 5 --slots 1

# The calls both sides measure, at sizes whose calls take milliseconds: at 64-256 KiB a
# rank waiting a scheduler slice for its core moved a clean launch to 0.72-0.97 of the
# reference launched just before, and the gate called it FAIL; at 1-4 MiB clean launches
# read 1.06-1.16. One rank per host keeps locate's tournament short; five hosts give it
# six healthy pairs to measure its noise by: with four, three pairs that differ 1.0-1.8x
# among themselves (ranks sharing 2 cores) told a host from noise only below 0.02, and h3
# at 0.03 stayed unresolved in 2 of 6 runs. The limit, 600 mbit/s each way, puts h3's
# pairs at 0.05-0.08 of the others', half diagnose's 0.15 for the mpi engine (at 900
# mbit/s 0.13, too near it), and costs locate seconds: the case took 32 s, 41 s at 300 mbit/s.
calls=(-c all_reduce --sizes 1M:4M:x4 --warmup 2 --iters 10)
rate=600mbit
# diagnose DIR [FLAG...]
diagnose() {
  bed_run 5 diagnose --engine mpi --reference "$PWD/reference" "${calls[@]}" --budget 3m -o "$PWD/$1" "${@:2}"
}
# layers DIR: each layer's verdict and the hosts it names, on one line.
layers() {
  json "$1/diagnose.json" '"; ".join("%s %s%s" % (l["layer"], l["verdict"], (" " + ",".join(l["hosts"])) if l["hosts"] else "") for l in d["layers"])'
}
# named DIR: "layer:host,..." for every layer that names a host or is a cause.
named() {
  json "$1/diagnose.json" '" ".join("%s:%s" % (l["layer"], ",".join(l["hosts"])) for l in d["layers"] if l["hosts"] or l["verdict"] == "cause")'
}
gate() { json "$1/diagnose.json" 'd["acceptance"]["verdict"] if d["acceptance"] else "none"'; }

step "reference run on a clean bed"
bed_run 5 run --engine mpi "${calls[@]}" --repeats 3 --order interleaved -q -o "$PWD/reference" ||
  fail "the reference run failed (exit $?)"

step "diagnose on a clean bed"
diagnose clean
status=$?
say_verdict "clean: exit $status, gate $(gate clean), $(layers clean)"
# No fault: nothing named, no layer a cause, and the gate never FAIL (PASS, or UNRESOLVED
# naming the repeats that settle it).
[ -z "$(named clean)" ] && { [ "$status" -eq 0 ] || [ "$status" -eq 5 ]; } ||
  fail "clean bed: named '$(named clean)' (exit $status), expected no layer naming a host or a cause, exit 0 or 5"

"$bed" fault link h3 "$rate"
step "diagnose with h3's link limited"
# One repeat of the calls: at 600 mbit/s the world's calls read 0.16-0.18 of the
# reference, which one repeat tells as surely as three (two thirds of this case's time),
# and the layer named is locate's, whose tournament the repeats do not touch.
diagnose link-h3 --repeats 1
status=$?
say_verdict "h3's link at $rate: exit $status, gate $(gate link-h3), $(layers link-h3)"
[ "$status" -eq 1 ] && [ "$(named link-h3)" = "hosts and links:h3" ] ||
  fail "h3's link limited: named '$(named link-h3)' (exit $status), expected 'hosts and links:h3' only, exit 1"
case_finish
