# Sourced by the cluster cases (tests/cluster/case-*.sh): a bed of 4 hosts for one case,
# torn down on any exit, and the case's lines (fault, verdict, FAIL) in one format.
# The case calls: case_init NAME NCCLSWEEP SOURCE_DIR [--slurm] [--hosts N].
# Exit status: 0 passed, 1 a check failed, 77 skipped (ctest's SKIP_RETURN_CODE).
set -uo pipefail

bed=$(dirname "$(realpath "${BASH_SOURCE[0]}")")/bed
failures=0
case_name=""
case_started=$SECONDS

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
skip() { echo "SKIP: $*"; exit 77; }
say_fault() { echo "fault: $*"; }
say_verdict() { echo "verdict: $*"; }
# step TEXT: a timed line per command the case runs.
step_started=$SECONDS
step() { echo "--- $* (at $((SECONDS - case_started)) s)"; step_started=$SECONDS; }

case_cleanup() {
  local status=$?
  if [ -n "${NCCLSWEEP_BED:-}" ] && [ -d "$NCCLSWEEP_BED" ]; then
    if [ "$failures" -gt 0 ] || [ "$status" -ne 0 ] && [ "$status" -ne 77 ]; then
      [ -s "$out_log" ] && { echo "--- the last launch's output ($out_log)"; tail -n 40 "$out_log"; }
      for log in "$NCCLSWEEP_BED"/slurm/*.log "$NCCLSWEEP_BED"/slurm/*.out; do
        [ -s "$log" ] && { echo "--- $log"; tail -n 20 "$log"; }
      done
    fi
    # NCCLSWEEP_CASE_KEEP=DIR: the results and logs of every launch kept under DIR/NAME-PID.
    if [ -n "${NCCLSWEEP_CASE_KEEP:-}" ]; then
      mkdir -p "$NCCLSWEEP_CASE_KEEP" && cp -r "$NCCLSWEEP_BED/shared" "$NCCLSWEEP_CASE_KEEP/$case_name-$$" &&
        echo "case: results kept in $NCCLSWEEP_CASE_KEEP/$case_name-$$"
    fi
    "$bed" down >/dev/null 2>&1 || echo "case: 'bed down' failed for $NCCLSWEEP_BED"
  fi
}

case_init() {
  case_name=$1
  bin=$(realpath "$2")
  src=$(realpath "$3")
  shift 3
  local reason
  if ! reason=$("$bed" can-run); then
    # CI (CI=true) has scripts/test install the tools; a machine without them skips.
    [ "${CI:-}" = true ] && [[ $reason == *"not installed"* ]] && { echo "FAIL: $reason; in CI scripts/test installs it"; exit 1; }
    skip "$case_name: $reason"
  fi
  local tool
  for tool in python3 mpirun; do
    command -v "$tool" >/dev/null 2>&1 || skip "$case_name: $tool is not installed"
  done
  if [[ " $* " == *" --slurm "* ]]; then
    local missing=()
    for tool in slurmctld slurmd srun sbatch munged; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
    if [ ${#missing[@]} -gt 0 ]; then
      [ "${CI:-}" = true ] && { echo "FAIL: ${missing[*]} not installed; in CI scripts/test installs them"; exit 1; }
      skip "$case_name: ${missing[*]} not installed (apt-get install slurmctld slurmd slurm-client munge)"
    fi
  fi
  trap case_cleanup EXIT
  step "bed up $*"
  # The build and the sources stay visible inside each host's own /tmp, if they are there.
  NCCLSWEEP_BED=$("$bed" up --owner $$ --keep "$(dirname "$bin")" --keep "$src" "$@") || { echo "FAIL: bed up $*"; exit 1; }
  export NCCLSWEEP_BED
  cd "$NCCLSWEEP_BED/shared" || exit 1
  echo "case $case_name: bed $NCCLSWEEP_BED ($("$bed" status | head -1))"
}

# bed_run N [MPIRUN_OPTION... --] ARGS...: ncclsweep ARGS on N ranks spread over the
# hosts (blocks of the hosts' slots unless the options say otherwise); its output in
# $out_log. Returns ncclsweep's exit status.
out_log=""
bed_run() {
  local ranks=$1
  shift
  local options=()
  if [[ " $* " == *" -- "* ]]; then
    while [ "$1" != -- ]; do options+=("$1"); shift; done
    shift
  fi
  bed_run_count=$((bed_run_count + 1))
  out_log=$NCCLSWEEP_BED/shared/out-$bed_run_count.log
  timeout 600 "$bed" mpirun -np "$ranks" "${options[@]}" "$bin" "$@" >"$out_log" 2>&1
}
bed_run_count=0

# json FILE EXPR: a Python expression over the parsed document `d`, printed.
json() { python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }

case_finish() {
  echo "case $case_name: $((SECONDS - case_started)) s, $failures failure(s)"
  [ "$failures" -eq 0 ] && echo "$case_name: all checks passed"
  exit $((failures > 0))
}
