#!/usr/bin/env bash
# soak on 4 emulated hosts x 2 ranks, windows of one second, with h3's link limited by tc
# half way through: a drift on h3 (or on a link of h3), starting within one window of the
# window the limit came in; nothing before it; and a clean soak that names nothing.
# Usage: case-soak.sh NCCLSWEEP SOURCE_DIR
. "$(dirname "$0")/case-lib.sh"
case_init soak "$1" "$2" --hosts 4 --slots 2

# As tests/integration/test_soak_launch.cpp: 8 ranks on 2 cores, so a +-60% band and a
# 0.1 threshold for the world's outliers.
soak_args() {
  echo soak --engine mpi --collectives all_reduce --sizes 64K --window 1s --duration "$1" --warmup 3 --iters 4 \
    --noise-rel 0.6 --threshold 0.1 -o "$PWD/$2"
}
verdicts() {
  json "$1/run.json" '"; ".join("%s %s from window %s" % (f["kind"], f.get("host", ",".join(f.get("hosts", []))), f.get("first_window", "-")) for f in d["verdicts"]["findings"])'
}

step "soak 8 s on a clean fabric"
# shellcheck disable=SC2046
bed_run 8 $(soak_args 8s clean)
status=$?
say_verdict "clean: exit $status, '$(verdicts clean)'"
[ "$status" -eq 0 ] && [ -z "$(verdicts clean)" ] || fail "clean soak: '$(verdicts clean)' (exit $status), expected nothing"

step "soak 20 s, h3's link limited to 40mbit after 7 windows"
bed_run_count=$((bed_run_count + 1))
log=$PWD/soak-fault.log
# shellcheck disable=SC2046
timeout 300 "$bed" mpirun -np 8 "$bin" $(soak_args 20s fault) >"$log" 2>&1 &
soak_pid=$!
fault_window=-1
for _ in $(seq 600); do
  windows=$( [ -f fault/records.jsonl ] && wc -l <fault/records.jsonl || echo 0)
  if [ "$windows" -ge 7 ]; then
    "$bed" fault link h3 40mbit
    fault_window=$windows  # the window in progress when the limit came in
    break
  fi
  kill -0 $soak_pid 2>/dev/null || break
  sleep 0.1
done
wait $soak_pid
status=$?
found=$(verdicts fault)
say_verdict "h3's link limited from window $fault_window: exit $status, '$found'"
[ "$fault_window" -ge 0 ] || fail "the soak ended before its seventh window"
python3 - fault/run.json "$fault_window" <<'PY' || fail "soak with h3's link limited: '$found'"
import json, sys
findings = json.load(open(sys.argv[1]))["verdicts"]["findings"]
fault = int(sys.argv[2])
def names_h3(f):
    return f.get("host") == "h3" or "h3" in f.get("hosts", [])
drifts = [f for f in findings if f["kind"] == "drift" and names_h3(f)]
others = [f for f in findings if not names_h3(f) and f.get("host") != "world"]
ok = bool(drifts) and all(abs(f["first_window"] - fault) <= 1 for f in drifts) and not others
if not ok:
    world = [f.get("evidence") for f in findings if f.get("host") == "world"]
    print(f"expected a drift on h3 from window {fault} (+-1) and nothing on other hosts; drifts on h3 {drifts}, others {others}; the world's: {world}")
sys.exit(0 if ok else 1)
PY
case_finish
