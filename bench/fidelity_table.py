#!/usr/bin/env python3
"""Prints ncclsweep's busbw and time next to nccl-tests' for the same sizes.

Usage: fidelity_table.py RUN_DIR NCCL_TESTS_TXT [RUN_DIR NCCL_TESTS_TXT ...]
Each RUN_DIR is an ncclsweep results directory (run.json); each text file is
nccl-tests output for the same collective. nccl-tests averages each rank's time; so
do the columns here (avg over ranks). 'events' is ncclsweep's measurement (CUDA events);
'host clock' times the same iterations as nccl-tests does, for a like-for-like check.
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


def busbw(record, time_us):
    factor = record["busbw_gbps"] / record["algbw_gbps"] if record["algbw_gbps"] else 0
    return record["size_bytes"] / (time_us * 1e-6) / 1e9 * factor


def main(argv):
    if len(argv) < 2 or len(argv) % 2:
        sys.exit(__doc__)
    worst = {"events": 0.0, "host": 0.0}
    worst_time = {"events": 0.0, "host": 0.0}
    print("| collective | size | placement | nccl-tests busbw | ncclsweep busbw (events) | delta | "
          "ncclsweep busbw (host clock) | delta | nccl-tests time us | ncclsweep time us (events) | "
          "ncclsweep time us (host clock) | delta us (host) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for run_dir, text in zip(argv[0::2], argv[1::2]):
        _, reference = nccl_tests_rows(text)
        run = json.load(open(run_dir + "/run.json"))
        for r in run["records"]:
            key = (r["size_bytes"], r["placement"])
            if key not in reference:
                continue
            ref_time, ref_busbw = reference[key]
            times = {"events": r["time_us"]["avg"], "host": r["host_time_us"]["avg"]}
            bw = {k: busbw(r, t) for k, t in times.items()}
            delta = {k: (b / ref_busbw - 1) * 100 for k, b in bw.items()}
            dt = {k: t - ref_time for k, t in times.items()}
            for k in times:
                if r["size_bytes"] >= 16 << 20:
                    worst[k] = min(worst[k], delta[k])
                if r["size_bytes"] == 1 << 20 and abs(dt[k]) > abs(worst_time[k]):
                    worst_time[k] = dt[k]
            print(f"| {r['collective']} | {r['size_bytes']} | {r['placement']} | {ref_busbw:.2f} | "
                  f"{bw['events']:.2f} | {delta['events']:+.1f}% | {bw['host']:.2f} | {delta['host']:+.1f}% | "
                  f"{ref_time:.2f} | {times['events']:.2f} | {times['host']:.2f} | {dt['host']:+.2f} |")
    print()
    for k in ("events", "host"):
        print(f"{k} clock: worst busbw shortfall at >= 16 MiB {worst[k]:+.1f}% (target >= -2%); "
              f"largest time difference at 1 MiB {worst_time[k]:+.2f} us (target within 1 us)")


if __name__ == "__main__":
    main(sys.argv[1:])
