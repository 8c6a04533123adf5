#!/usr/bin/env bash
# A real one-node Slurm cluster on localhost: starts slurmctld and slurmd directly (no
# systemd), then runs
#   srun -n 4 --mpi=pmix ncclsweep run SWEEP --engine mpi     (end to end, results checked)
#   sbatch --wait scripts/slurm/ncclsweep.sbatch             (the template users edit)
# and stops the daemons. Eight fake GPU devices (character devices like /dev/null) give
# Slurm GPUs to hand out, so the test also sees the CUDA_VISIBLE_DEVICES Slurm sets.
# Usage: run-slurm-test.sh NCCLSWEEP SOURCE_DIR. Exit 77 (ctest: skipped) when not root, or
# outside CI when Slurm is not installed.
set -uo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "needs root: it starts slurmctld and slurmd"

# Slurm and python3 are test-only tools: CI (CI=true) has scripts/test install them; any
# other machine without them skips with the reason.
missing=()
for tool in slurmctld slurmd srun sbatch python3; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  [ "${CI:-}" = true ] && { echo "FAIL: ${missing[*]} not installed; in CI scripts/test installs them"; exit 1; }
  skip "${missing[*]} not installed (apt-get install slurmctld slurmd slurm-client python3)"
fi

work=$(mktemp -d /tmp/ncclsweep-slurm.XXXXXX)
host=$(hostname -s)
# Ports of this cluster only, so a second run (or a real Slurm) on the machine does not clash.
port=$((20000 + RANDOM % 20000))
export SLURM_CONF=$work/slurm.conf
pids=()
cleanup() {
  scancel --full "--user=$(id -un)" >/dev/null 2>&1  # job steps (slurmstepd) outlive slurmd
  sleep 1
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  if [ "$failures" -gt 0 ]; then
    for log in "$work"/*.log "$work"/*.out; do [ -f "$log" ] && { echo "--- $log"; tail -n 30 "$log"; }; done
  fi
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work"/{state,spool,dev}
for i in 0 1 2 3 4 5 6 7; do mknod "$work/dev/nvidia$i" c 1 3 || skip "cannot create device nodes (mknod)"; done
# One node with more CPU slots than the machine has (config_overrides) and 8 GPUs;
# auth/none: a single-host test cluster needs no munge.
cat >"$SLURM_CONF" <<EOF
ClusterName=ncclsweep-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/none
CredType=cred/none
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
MpiDefault=none
ReturnToService=2
GresTypes=gpu
NodeName=$host NodeAddr=127.0.0.1 CPUs=64 Gres=gpu:8 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:64
EOF
echo "NodeName=$host Name=gpu File=$work/dev/nvidia[0-7]" >"$work/gres.conf"

slurmctld -D -i >"$work/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D >"$work/slurmd.out" 2>&1 &
pids+=($!)
state=""
for _ in $(seq 60); do
  state=$(sinfo -h -o %t 2>/dev/null)
  [ "$state" = idle ] && break
  sleep 0.5
done
[ "$state" = idle ] || { fail "the node never became idle (state '$state')"; exit 1; }
echo "$(sinfo -V) up on $host, port $port; srun --mpi=list: $(srun --mpi=list 2>&1 | tr '\n' ' ')"

# Checks a results directory: complete, N ranks on this host with local ranks 0..N-1, rank r
# is Slurm's task r, records from N ranks with no wrong elements. Extra KEY=VALUE arguments:
# environment every rank must have seen.
check_results() {
  python3 - "$@" <<'EOF'
import json, sys
directory, ranks, host, *expected = sys.argv[1:]
ranks = int(ranks)
run = json.load(open(directory + "/run.json"))
problems = []
if run["status"] != "complete": problems.append("status " + run["status"])
if len(run["ranks"]) != ranks: problems.append(f"{len(run['ranks'])} ranks, expected {ranks}")
if run["hosts"] != [host]: problems.append(f"hosts {run['hosts']}, expected [{host}]")
if sorted(r["local_rank"] for r in run["ranks"]) != list(range(ranks)): problems.append("local ranks not 0..N-1")
for r in run["ranks"]:
    env = r["environment"]
    if env.get("SLURM_PROCID") != str(r["rank"]): problems.append(f"rank {r['rank']} is Slurm task {env.get('SLURM_PROCID')}")
    for pair in expected:
        key, value = pair.split("=", 1)
        if env.get(key) != value: problems.append(f"rank {r['rank']}: {key}={env.get(key)}, expected {value}")
if not run["records"]: problems.append("no records")
for rec in run["records"]:
    if rec["ranks"] != ranks or rec["wrong"] != 0: problems.append(f"record {rec['collective']} {rec['size_bytes']}: ranks {rec['ranks']} wrong {rec['wrong']}")
visible = [r["environment"].get("CUDA_VISIBLE_DEVICES") for r in run["ranks"]]
print(f"{directory}: {len(run['records'])} records, CUDA_VISIBLE_DEVICES per rank {visible}")
for p in problems: print("  " + p)
sys.exit(1 if problems else 0)
EOF
}

# 1. srun, PMIx: four ranks of the mpi engine, one (fake) GPU per task.
sweep=$src/tests/slurm/sweep.yaml
if timeout 120 srun -n 4 --mpi=pmix --gpus-per-task=1 "$bin" run "$sweep" --engine mpi -o "$work/srun" \
  >"$work/srun.out" 2>&1; then
  check_results "$work/srun" 4 "$host" || fail "srun --mpi=pmix results"
  python3 - "$work/srun/run.json" <<'EOF' || fail "--gpus-per-task=1 did not give each rank its own GPU"
import json, sys
visible = [r["environment"].get("CUDA_VISIBLE_DEVICES", "") for r in json.load(open(sys.argv[1]))["ranks"]]
sys.exit(0 if len(set(visible)) == len(visible) and all(v and "," not in v for v in visible) else 1)
EOF
else
  fail "srun -n 4 --mpi=pmix ncclsweep run exited $?"
fi

# 2. Which other PMI flavours this Slurm and Open MPI pair supports (reported, not required).
for plugin in pmi2; do
  if timeout 60 srun -n 2 --mpi=$plugin "$bin" run --engine mpi --collectives all_reduce --sizes 1K --iters 1 \
    -o "$work/$plugin" >"$work/$plugin.txt" 2>&1; then
    echo "srun --mpi=$plugin: works"
  else
    echo "srun --mpi=$plugin: fails with this Open MPI ($(grep -m1 -o 'An error occurred in [A-Za-z_]*' "$work/$plugin.txt"))"
  fi
done

# 3. The sbatch template as a user submits it, with the template's settings given by --export.
touch "$work/topo.xml"
if timeout 150 sbatch --wait --nodes=1 --ntasks-per-node=4 --gpus-per-node=4 --time=5 --chdir="$work" \
  --output="$work/sbatch.out" \
  --export="ALL,NCCLSWEEP=$bin,SWEEP=$sweep,ENGINE=mpi,RESULTS=$work/sbatch-results,TOPO_FILE=$work/topo.xml" \
  "$src/scripts/slurm/ncclsweep.sbatch" >/dev/null; then
  check_results "$work/sbatch-results" 4 "$host" NCCL_DEBUG=WARN "NCCL_TOPO_FILE=$work/topo.xml" \
    CUDA_VISIBLE_DEVICES=0,1,2,3 || fail "sbatch results"
else
  fail "sbatch --wait scripts/slurm/ncclsweep.sbatch exited $?"
fi

[ "$failures" -eq 0 ] && echo "slurm: all checks passed"
exit $((failures > 0))
