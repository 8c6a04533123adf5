#!/usr/bin/env bash
# srun and sbatch across the bed's 4 Slurm nodes (a slurmd in each host's namespaces,
# slurmctld and munged in login): ncclsweep run on 2 tasks per node under srun --mpi=pmix,
# doctor under srun naming the node whose environment differs, and the sbatch template
# as users submit it.
# Usage: case-slurm.sh NCCLSWEEP SOURCE_DIR
. "$(dirname "$0")/case-lib.sh"
case_init slurm "$1" "$2" --hosts 4 --slots 2 --slurm
on_login() { timeout 300 "$bed" exec login -- "$@"; }
echo "$(on_login sinfo -V): $(on_login sinfo -h -o '%D nodes %t %N')"

# Rank r is Slurm task r on node r/2 (block distribution), local rank r%2.
check_results() {
  local dir=$1 what=$2
  python3 - "$dir/run.json" "$what" <<'EOF'
import json, sys
run, what = json.load(open(sys.argv[1])), sys.argv[2]
problems = []
if run["status"] != "complete": problems.append("status " + run["status"])
if run["hosts"] != ["h1", "h2", "h3", "h4"]: problems.append(f"hosts {run['hosts']}")
for r in run["ranks"]:
    env, rank = r["environment"], r["rank"]
    want = (f"h{rank // 2 + 1}", rank % 2, str(rank), str(rank // 2))
    got = (r["host"], r["local_rank"], env.get("SLURM_PROCID"), env.get("SLURM_NODEID"))
    if got != want: problems.append(f"rank {rank}: (host, local rank, SLURM_PROCID, SLURM_NODEID) {got}, expected {want}")
if not run["records"] or any(rec["ranks"] != 8 or rec["wrong"] != 0 for rec in run["records"]):
    problems.append("records missing, not on 8 ranks, or with wrong elements")
visible = sorted({r["environment"].get("CUDA_VISIBLE_DEVICES", "") for r in run["ranks"]})
print(f"verdict: {what}: {len(run['ranks'])} ranks on {run['hosts']}, local ranks and Slurm tasks as placed, "
      f"{len(run['records'])} records, CUDA_VISIBLE_DEVICES {visible}")
for p in problems: print("FAIL: " + p)
sys.exit(1 if problems else 0)
EOF
}

say_fault "none for run; NCCL_ALGO=Tree on node h2 only (through TaskProlog) for doctor"
step "srun -N 4 --ntasks-per-node=2 --mpi=pmix ncclsweep run"
if on_login srun -N 4 --ntasks-per-node=2 --mpi=pmix "$bin" run --engine mpi --collectives all_reduce \
  --sizes 4K,64K --iters 3 --warmup 1 -o "$PWD/srun" -q >srun.out 2>&1; then
  check_results srun "srun" || failures=$((failures + 1))
else
  fail "srun ncclsweep run exited $?"; tail -n 30 srun.out
fi

step "srun ncclsweep doctor, NCCL_ALGO set on h2"
"$bed" env h2 NCCL_ALGO=Tree
on_login srun -N 4 --ntasks-per-node=2 --mpi=pmix "$bin" doctor --no-gpu-tools --format json >doctor.out 2>doctor.err
uniform=$(python3 -c '
import json, sys
text = open(sys.argv[1]).read()
d = json.JSONDecoder().raw_decode(text[text.index("{"):])[0]
print(" ".join("%s:%s" % (",".join(f["hosts"]), ",".join(map(str, f["ranks"]))) for f in d["findings"] if f["check"] == "env.uniform"))
' doctor.out 2>&1)
[ "$uniform" = "h2:2,3" ] && say_verdict "srun doctor: env.uniform names $uniform" ||
  { fail "srun doctor: env.uniform '$uniform', expected h2:2,3"; tail -n 20 doctor.err; }
"$bed" env h2 -NCCL_ALGO

# The template with the settings a user edits given by --export; submitted from login,
# polled (sbatch --wait polls at doubling intervals, up to 30 s late).
step "sbatch scripts/slurm/ncclsweep.sbatch --nodes=4 --ntasks-per-node=2 --gpus-per-node=2"
job=$(on_login sbatch --parsable --nodes=4 --ntasks-per-node=2 --gpus-per-node=2 --time=5 --chdir="$PWD" \
  --output="$PWD/sbatch.out" \
  --export="ALL,NCCLSWEEP=$bin,SWEEP=$src/tests/slurm/sweep.yaml,ENGINE=mpi,RESULTS=$PWD/sbatch-results" \
  "$src/scripts/slurm/ncclsweep.sbatch")
state=""
for _ in $(seq 300); do
  state=$(on_login scontrol show job "$job" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
  case "$state" in PENDING | RUNNING | CONFIGURING | COMPLETING | "") sleep 0.5 ;; *) break ;; esac
done
if [ "$state" = COMPLETED ]; then
  check_results sbatch-results "sbatch job $job" || failures=$((failures + 1))
  grep -q "CUDA_VISIBLE_DEVICES" sbatch-results/run.json && [ "$(json sbatch-results/run.json \
    'sorted({r["environment"].get("CUDA_VISIBLE_DEVICES") for r in d["ranks"]})')" = "['0,1']" ] ||
    fail "sbatch --gpus-per-node=2: every rank should see CUDA_VISIBLE_DEVICES=0,1"
else
  fail "sbatch job $job ended $state"; tail -n 30 sbatch.out
fi
case_finish
