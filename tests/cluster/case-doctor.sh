#!/usr/bin/env bash
# doctor across 4 emulated hosts x 2 ranks, with two faults made in the hosts themselves:
# NCCL_TOPO_FILE's target present in every host's /tmp but h2's, and NCCL_ALGO set in h3's
# environment only (its MPI daemon starts with it, so its ranks inherit it). doctor must
# name h2 (and only h2) for the file and h3 (and only h3) for the variable; on the same
# bed without the faults it names neither.
# Usage: case-doctor.sh NCCLSWEEP SOURCE_DIR
. "$(dirname "$0")/case-lib.sh"
case_init doctor "$1" "$2" --hosts 4 --slots 2

# findings CHECK: "severity hosts ranks" of each finding of CHECK in doctor.json, one per line.
findings() {
  json doctor.json "'\n'.join('%s %s %s' % (f['severity'], ','.join(f['hosts']), ','.join(map(str, f['ranks']))) for f in d['findings'] if f['check'] == '$1')"
}
doctor() {
  bed_run 8 -x NCCL_TOPO_FILE=/tmp/topo.xml -- doctor --no-gpu-tools --format json
  local status=$?
  # Rank 0 prints the JSON document; Open MPI's own lines may follow it.
  python3 - "$out_log" <<'EOF' >doctor.json || { echo "no JSON in doctor's output:"; cat "$out_log"; }
import json, sys
text = open(sys.argv[1]).read()
start = text.index("{")
print(json.dumps(json.JSONDecoder().raw_decode(text[start:])[0]))
EOF
  return $status
}

# 1. Clean: the file on every host, the same environment everywhere.
for h in h1 h2 h3 h4; do echo '<system version="1"></system>' >"$("$bed" path $h /tmp/topo.xml)"; done
step "doctor on a clean bed"
doctor
status=$?
[ -z "$(findings env.file)$(findings env.uniform)" ] && say_verdict "clean: no env.file or env.uniform finding (exit $status)" ||
  fail "clean bed: env.file '$(findings env.file)', env.uniform '$(findings env.uniform)'"

# 2. The faults.
rm "$("$bed" path h2 /tmp/topo.xml)"
say_fault "NCCL_TOPO_FILE=/tmp/topo.xml on every rank; the file missing from h2's /tmp only"
"$bed" env h3 NCCL_ALGO=Tree
say_fault "NCCL_ALGO=Tree in h3's environment only"
step "doctor with the faults"
doctor
status=$?
file=$(findings env.file)
uniform=$(findings env.uniform)
say_verdict "doctor exit $status; env.file: $file; env.uniform: $uniform"
[ "$status" -eq 1 ] || fail "doctor exited $status, expected 1 (an error finding)"
[ "$file" = "error h2 2,3" ] || fail "env.file: '$file', expected 'error h2 2,3' (h2's ranks, nobody else)"
[ "$uniform" = "error h3 4,5" ] || fail "env.uniform: '$uniform', expected 'error h3 4,5' (h3's ranks, nobody else)"
grep -q 'NCCL_ALGO' doctor.json || fail "doctor's evidence does not name NCCL_ALGO"
case_finish
