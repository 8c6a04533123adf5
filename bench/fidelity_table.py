#!/usr/bin/env python3
"""Prints ncclsweep's busbw and time next to nccl-tests' for the same sizes.

Usage: fidelity_table.py RUN_DIR NCCL_TESTS_TXT [RUN_DIR NCCL_TESTS_TXT ...]
Each RUN_DIR is an ncclsweep results directory (run.json); each text file is
nccl-tests output for the same collective. nccl-tests averages each rank's time; so
does the 'avg' column here, which is the like-for-like comparison. 'max' is
ncclsweep's own figure (the slowest rank's time).
"""
import json
import sys


def nccl_tests_rows(path):
    rows = {}
    collective = None
    with open(path) as f:
        for line in f:
            if "Collective test starting:" in line:
                collective = line.split(":")[-1].strip().replace("_perf_mpi", "").replace("_perf", "")
            parts = line.split()
            if line.startswith("#") or len(parts) < 13 or not parts[0].isdigit():
                continue
            size = int(parts[0])
            # size count type redop root | time algbw busbw #wrong | time algbw busbw #wrong
            rows[(size, "out_of_place")] = (float(parts[5]), float(parts[7]))
            rows[(size, "in_place")] = (float(parts[9]), float(parts[11]))
    return collective, rows


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        sys.exit(__doc__)
    worst_busbw, worst_time = 0.0, 0.0
    print("| collective | size | placement | nccl-tests busbw | ncclsweep busbw (avg) | delta | ncclsweep busbw (max) "
          "| nccl-tests time us | ncclsweep time us (avg) | delta us |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for run_dir, text in zip(argv[0::2], argv[1::2]):
        collective, reference = nccl_tests_rows(text)
        run = json.load(open(run_dir + "/run.json"))
        for r in run["records"]:
            key = (r["size_bytes"], r["placement"])
            if key not in reference:
                continue
            ref_time, ref_busbw = reference[key]
            factor = r["busbw_gbps"] / r["algbw_gbps"] if r["algbw_gbps"] else 0
            avg_busbw = r["size_bytes"] / (r["time_us"]["avg"] * 1e-6) / 1e9 * factor
            delta = (avg_busbw / ref_busbw - 1) * 100
            dt = r["time_us"]["avg"] - ref_time
            if r["size_bytes"] >= 16 << 20:
                worst_busbw = min(worst_busbw, delta)
            if r["size_bytes"] == 1 << 20:
                worst_time = max(worst_time, dt)
            print(f"| {r['collective']} | {r['size_bytes']} | {r['placement']} | {ref_busbw:.2f} | {avg_busbw:.2f} | "
                  f"{delta:+.1f}% | {r['busbw_gbps']:.2f} | {ref_time:.2f} | {r['time_us']['avg']:.2f} | {dt:+.2f} |")
    print()
    print(f"worst busbw shortfall at >= 16 MiB: {worst_busbw:+.1f}% (target >= -2%); "
          f"worst extra time at 1 MiB: {worst_time:+.2f} us (target <= 1 us)")


if __name__ == "__main__":
    main(sys.argv[1:])
