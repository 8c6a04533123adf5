#!/usr/bin/env bash
# probe on 4 emulated hosts x 1 rank with one host's processes held to a CPU quota by a
# cgroup made outside ncclsweep: that host, and only it, named (its clocks or stalls).
# Usage: case-probe.sh NCCLSWEEP SOURCE_DIR
. "$(dirname "$0")/case-lib.sh"
case_init probe "$1" "$2" --hosts 4 --slots 1
[ "$("$bed" status | grep -o 'cgroup [a-z0-9]*$')" != "cgroup none" ] ||
  skip "probe: no cgroup cpu controller here to limit a host with"

named() { json "$1/probe.json" '",".join(d["named_hosts"])'; }

step "probe on a clean bed"
bed_run 4 probe --engine mpi --quick -o "$PWD/clean"
status=$?
say_verdict "clean: exit $status, named '$(named clean)'"
[ "$status" -eq 0 ] && [ -z "$(named clean)" ] || fail "clean bed: named '$(named clean)' (exit $status), expected nothing"

"$bed" fault cpu h2 25
step "probe with h2 held to 25% of a CPU"
bed_run 4 probe --engine mpi --quick -o "$PWD/quota"
status=$?
checks=$(json quota/probe.json '" ".join(sorted({f["check"] for f in d["findings"] if "h2" in f["hosts"]}))')
say_verdict "h2 at 25% of a CPU: exit $status, named '$(named quota)' ($checks)"
[ "$status" -eq 1 ] && [ "$(named quota)" = h2 ] || fail "cpu quota on h2: named '$(named quota)' (exit $status), expected h2 only"
case_finish
