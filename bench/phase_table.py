#!/usr/bin/env python3
"""Where a sweep launch's wall time went, from run.json's per-point phase times.

Usage: phase_table.py RUN_DIR [WALL_SECONDS]
Sums each phase over the points (rank 0's view); with the launch's wall time, the rest
(mpirun start, preflight, worker exits, writing results) is printed as 'other'.
"""
import json
import sys


def main(argv):
    if not argv:
        sys.exit(__doc__)
    points = json.load(open(argv[0] + "/run.json"))["points"]
    phases = ["worker_start", "connect", "verify", "measure", "disconnect"]
    total = {p: sum(pt.get("phase_s", {}).get(p, 0.0) for pt in points) for p in phases}
    starts = sum(1 for pt in points if pt.get("phase_s", {}).get("worker_start", 0) > 0)
    print("| phase | seconds | per occurrence |")
    print("|---|---:|---:|")
    for p in phases:
        n = starts if p == "worker_start" else len(points)
        print(f"| {p} | {total[p]:.2f} | {total[p] / max(n, 1):.3f} ({n}x) |")
    if len(argv) > 1:
        wall = float(argv[1])
        print(f"| other (launch, preflight, worker exits, results) | {wall - sum(total.values()):.2f} | |")
        print(f"| wall | {wall:.2f} | |")


if __name__ == "__main__":
    main(sys.argv[1:])
