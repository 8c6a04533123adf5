#!/usr/bin/env python3
"""Start-up and control-plane cost of one `ncclsweep run` against the rank count (docs/scale.md).

For each rank count N and each binary given, runs
    mpirun --oversubscribe -np N NCCLSWEEP run --engine mpi --sizes 4K --iters 5 -o DIR
and takes
    wall          mpirun's wall time, start to exit;
    first         the time from the start until rank 0 has written the first record
                  (records.jsonl polled every 5 ms): launch, MPI_Init, loading, the
                  rank-entry gather, preflight and the first measurement;
    rank 0 peak   rank 0's peak resident memory (VmHWM, as getrusage's ru_maxrss of the
                  process this script wraps rank 0 in: an MPMD launch whose first
                  context is this script, which runs ncclsweep as its child).
The binaries run in turn at each N (A, B, A, B, ... with --repeats), so a machine whose
load drifts moves them alike. Where mpicc is found, a program that only calls MPI_Init,
MPI_Barrier and MPI_Finalize runs in turn with them: the floor that mpirun and Open MPI
set at N ranks on this machine. Prints a Markdown table (medians over the repeats) and
least-squares fits of each figure against N: a + b*N, and the growth exponent k of
a*N^k (a line through log N and log figure).

Usage: rank_scaling.py [--ranks 8,16,32,64,128] [--repeats 1] NAME=NCCLSWEEP [NAME=NCCLSWEEP ...]
"""
import json
import math
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from control_plane import fit  # least squares a + b x, shared with the control-plane bench

RUN_ARGS = ["run", "--engine", "mpi", "--sizes", "4K", "--iters", "5"]


def wrap(argv):
    """Rank 0's wrapper: runs the command, writes its peak RSS in KiB to argv[0]."""
    status = subprocess.call(argv[1:])
    with open(argv[0], "w") as out:
        out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
    sys.exit(status)


def option(argv, name, default):
    return argv[argv.index(name) + 1] if name in argv else default


def one_run(binary, ranks, directory):
    peak_file = directory + ".peak"
    command = (["mpirun", "--oversubscribe", "-np", "1", sys.executable, os.path.abspath(__file__), "--wrap",
                peak_file, binary] + RUN_ARGS + ["-o", directory])
    if ranks > 1:
        command += [":", "-np", str(ranks - 1), binary] + RUN_ARGS + ["-o", directory]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    records = os.path.join(directory, "records.jsonl")
    first = []
    done = threading.Event()

    def watch(start):
        while not done.is_set():
            if os.path.exists(records) and os.path.getsize(records) > 0:
                first.append(time.monotonic() - start)
                return
            time.sleep(0.005)

    start = time.monotonic()
    watcher = threading.Thread(target=watch, args=(start,))
    watcher.start()
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    wall = time.monotonic() - start
    done.set()
    watcher.join()
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} exited {result.returncode}:\n{result.stderr[-2000:]}")
    measured = sum(1 for line in open(records) if line.strip())
    peak_mib = int(open(peak_file).read()) / 1024
    return wall, first[0] if first else float("nan"), peak_mib, measured


FLOOR_SOURCE = """#include <mpi.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
"""


def build_floor(work):
    """The MPI-only program, or None without mpicc."""
    source, binary = os.path.join(work, "floor.c"), os.path.join(work, "mpi-floor")
    with open(source, "w") as out:
        out.write(FLOOR_SOURCE)
    try:
        subprocess.run(["mpicc", source, "-o", binary], check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return binary


def floor_run(binary, ranks):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    start = time.monotonic()
    subprocess.run(["mpirun", "--oversubscribe", "-np", str(ranks), binary], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    return time.monotonic() - start, float("nan"), float("nan"), 0



def main(argv):
    if argv[:1] == ["--wrap"]:
        wrap(argv[1:])
    rank_counts = [int(n) for n in option(argv, "--ranks", "8,16,32,64,128").split(",")]
    repeats = int(option(argv, "--repeats", "1"))
    binaries = [a.split("=", 1) for a in argv if "=" in a and not a.startswith("-")]
    if not binaries:
        sys.exit(__doc__)
    load = os.getloadavg()[0]
    rows = []  # (name, N, wall, first, peak, records)
    with tempfile.TemporaryDirectory() as work:
        floor = build_floor(work)
        if floor:
            binaries.append(["MPI_Init+MPI_Finalize alone", floor])
        for n in rank_counts:
            figures = {name: [] for name, _ in binaries}
            for repeat in range(repeats):
                for name, binary in binaries:
                    if binary == floor:
                        figures[name].append(floor_run(binary, n))
                    else:
                        figures[name].append(one_run(os.path.abspath(binary), n, f"{work}/{len(figures[name])}-{n}-{name}"))
                    wall, first, peak, _ = figures[name][-1]
                    print(f"# {name} {n} ranks: wall {wall:.1f} s, first record {first:.1f} s, rank 0 peak {peak:.0f} MiB",
                          file=sys.stderr, flush=True)
            for name, _ in binaries:
                runs = figures[name]
                rows.append((name, n, statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
                             statistics.median(r[2] for r in runs), runs[0][3]))

    print(f"Machine: {os.cpu_count()} CPUs, load average {load:.1f} before the first run; {repeats} repeat(s) per "
          f"figure (median); `mpirun --oversubscribe -np N ncclsweep {' '.join(RUN_ARGS)}`.\n")
    print("| binary | ranks | wall, s | first record, s | rank 0 peak, MiB | records |")
    print("|---|---:|---:|---:|---:|---:|")
    show = lambda v, digits: "-" if math.isnan(v) else f"{v:.{digits}f}"
    for name, n, wall, first, peak, records in rows:
        print(f"| {name} | {n} | {wall:.1f} | {show(first, 1)} | {show(peak, 0)} | {records or '-'} |")
    print("\n| binary | figure | a + b*N: a | b (per rank) | R^2 | k of a*N^k | R^2 | at 512 ranks (a*N^k) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    for name, _ in binaries:
        mine = [r for r in rows if r[0] == name]
        if len(mine) < 2:
            continue
        ns = [r[1] for r in mine]
        for label, column in (("wall, s", 2), ("first record, s", 3), ("rank 0 peak, MiB", 4)):
            ys = [r[column] for r in mine]
            if any(math.isnan(y) for y in ys):
                continue
            a, b, r2 = fit(ns, ys)
            log_a, k, log_r2 = fit([math.log(n) for n in ns], [math.log(y) for y in ys])
            print(f"| {name} | {label} | {a:.2f} | {b:.4f} | {r2:.3f} | {k:.2f} | {log_r2:.3f} | "
                  f"{math.exp(log_a) * 512 ** k:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
