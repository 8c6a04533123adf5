#!/usr/bin/env python3
"""Control-plane cost of `ncclsweep run --engine mpi` against the rank count (docs/scale.md).

For each rank count N it runs two sweeps that differ only in their number of measurements
(1 size and 1+EXTRA sizes of a tiny all_reduce, warmup 0, iters 1, no check) under
`mpirun --oversubscribe -np N`, and takes from each
    untimed = wall time of mpirun - sum over records of time_us.max x iters.
The per-measurement coordination cost (result reductions across ranks, rank 0's terminal
and records.jsonl writes, the loop itself) is the difference of the two untimed times over
the difference of their measurement counts; the fixed cost (launch, MPI_Init, gathering the
rank entries, run.json) is what is left of the short run. Medians over REPEATS runs. Then
fits cost = a + b*N and cost = a + b*log2(N) by least squares and extrapolates.

Usage: control_plane.py NCCLSWEEP [--ranks 4,8,16,32,64] [--repeats 3] [--extra 32]
"""
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time


def option(argv, name, default):
    return argv[argv.index(name) + 1] if name in argv else default


def one_run(binary, ranks, sizes, directory):
    command = ["mpirun", "--oversubscribe", "-np", str(ranks), binary, "run", "--engine", "mpi",
               "--collectives", "all_reduce", "--sizes", sizes, "--warmup", "0", "--iters", "1", "--check", "0",
               "-o", directory]
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    start = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.monotonic() - start
    run = json.load(open(directory + "/run.json"))
    timed = sum(r["time_us"]["max"] * 1e-6 * r["iters"] for r in run["records"])
    return wall - timed, len(run["records"])


def fit(xs, ys):
    """Least squares y = a + b x; returns a, b and R^2."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    total = sum((y - my) ** 2 for y in ys)
    residual = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys))
    return a, b, (1 - residual / total) if total > 0 else 1.0


def main(argv):
    binary = os.path.abspath(argv[0])
    rank_counts = [int(n) for n in option(argv, "--ranks", "4,8,16,32,64").split(",")]
    repeats = int(option(argv, "--repeats", "3"))
    extra = int(option(argv, "--extra", "32"))
    short_sizes, long_sizes = "8", f"8:{8 * (extra + 1)}:+8"
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for n in rank_counts:
            per_measurement, fixed = [], []
            for repeat in range(repeats):
                short, p_short = one_run(binary, n, short_sizes, f"{work}/{n}-{repeat}-short")
                long, p_long = one_run(binary, n, long_sizes, f"{work}/{n}-{repeat}-long")
                cost = (long - short) / (p_long - p_short)
                per_measurement.append(cost)
                fixed.append(short - p_short * cost)
            rows.append((n, statistics.median(per_measurement), statistics.median(fixed),
                         max(per_measurement) - min(per_measurement)))
            print(f"# {n} ranks: {rows[-1][1] * 1e3:.2f} ms per measurement, {rows[-1][2]:.2f} s fixed",
                  file=sys.stderr, flush=True)

    print(f"Machine: {os.cpu_count()} CPUs, {repeats} repeats, {extra} extra sizes x 2 placements per long run.\n")
    print("| ranks | coordination per measurement, ms (median) | spread, ms | fixed per run, s (median) |")
    print("|---:|---:|---:|---:|")
    for n, cost, fixed, spread in rows:
        print(f"| {n} | {cost * 1e3:.2f} | {spread * 1e3:.2f} | {fixed:.2f} |")
    ns = [r[0] for r in rows]
    print("\n| quantity | model | a | b | R^2 | at 512 ranks | at 4096 ranks |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, column, unit, scale in (("per measurement", 1, "ms", 1e3), ("fixed per run", 2, "s", 1.0)):
        ys = [r[column] * scale for r in rows]
        for model, transform in (("a + b*N", float), ("a + b*log2(N)", math.log2)):
            a, b, r2 = fit([transform(n) for n in ns], ys)
            print(f"| {name} ({unit}) | {model} | {a:.3f} | {b:.4f} | {r2:.3f} | "
                  f"{a + b * transform(512):.2f} | {a + b * transform(4096):.2f} |")


if __name__ == "__main__":
    main(sys.argv[1:])
