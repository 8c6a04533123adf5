#!/usr/bin/env python3
"""Prints ncclsweep's busbw and time next to nccl-tests' for the same sizes, then the best
buffer/launch mode per size.

Usage: fidelity_table.py [--modes RUN_DIR] COLLECTIVE RUN_DIRS NCCL_TESTS_TXTS [...]
RUN_DIRS and NCCL_TESTS_TXTS are comma-separated: one per round, alternated when measured.
Each side's median over its rounds is compared. nccl-tests averages each rank's time; so
do the columns here (avg over ranks). 'events' is ncclsweep's measurement (CUDA events);
'host clock' times the same iterations as nccl-tests does, for a like-for-like check.
--modes: a run of several --buffers/--launch modes; per size its best mode's busbw against
nccl-tests' default, and as a share of the 478 GB/s NVLink peak of an H200 (NV18).
"""
import json
import statistics
import sys

NVLINK_PEAK_GBPS = 478.0


def nccl_tests_rows(path):
    rows = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            if line.startswith("#") or len(parts) < 13 or not parts[0].isdigit():
                continue
            size = int(parts[0])
            # size count type redop root | time algbw busbw #wrong | time algbw busbw #wrong
            rows[(size, "out_of_place")] = (float(parts[5]), float(parts[7]))
            rows[(size, "in_place")] = (float(parts[9]), float(parts[11]))
    return rows


def median_rows(rounds):
    """{key: tuple of medians over the rounds that have the key}."""
    keys = set().union(*rounds)
    return {k: tuple(statistics.median(vals) for vals in zip(*[r[k] for r in rounds if k in r])) for k in keys}


def ncclsweep_rows(run_dir, collective):
    rows = {}
    for r in json.load(open(run_dir + "/run.json"))["records"]:
        if r["collective"] != collective:
            continue
        if r.get("buffers", "cuda-malloc") != "cuda-malloc" or r.get("launch", "stream") != "stream":
            continue
        factor = r["busbw_gbps"] / r["algbw_gbps"] if r["algbw_gbps"] else 0
        rows[(r["size_bytes"], r["placement"])] = (r["time_us"]["avg"], r["host_time_us"]["avg"], factor)
    return rows


def busbw(size, time_us, factor):
    return size / (time_us * 1e-6) / 1e9 * factor


def fidelity_table(triples):
    worst = {"events": 0.0, "host": 0.0}
    worst_at = {"events": "", "host": ""}
    worst_time = {"events": 0.0, "host": 0.0}
    print("| collective | size | placement | nccl-tests busbw | ncclsweep busbw (events) | delta | "
          "ncclsweep busbw (host clock) | delta | nccl-tests time us | ncclsweep time us (events) | "
          "ncclsweep time us (host clock) | delta us (host) |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    references = {}
    for collective, run_dirs, texts in triples:
        reference = median_rows([nccl_tests_rows(t) for t in texts.split(",")])
        references[collective] = reference
        ours = median_rows([ncclsweep_rows(d, collective) for d in run_dirs.split(",")])
        for key in sorted(ours):
            if key not in reference:
                continue
            size, placement = key
            ref_time, ref_busbw = reference[key]
            events_us, host_us, factor = ours[key]
            times = {"events": events_us, "host": host_us}
            bw = {k: busbw(size, t, factor) for k, t in times.items()}
            delta = {k: (b / ref_busbw - 1) * 100 for k, b in bw.items()}
            dt = {k: t - ref_time for k, t in times.items()}
            for k in times:
                if size >= 16 << 20 and delta[k] < worst[k]:
                    worst[k], worst_at[k] = delta[k], f"{collective} {size} {placement}"
                if size == 1 << 20 and abs(dt[k]) > abs(worst_time[k]):
                    worst_time[k] = dt[k]
            print(f"| {collective} | {size} | {placement} | {ref_busbw:.2f} | {bw['events']:.2f} | "
                  f"{delta['events']:+.1f}% | {bw['host']:.2f} | {delta['host']:+.1f}% | {ref_time:.2f} | "
                  f"{events_us:.2f} | {host_us:.2f} | {dt['host']:+.2f} |")
    print()
    for k in ("events", "host"):
        print(f"{k} clock: worst busbw shortfall at >= 16 MiB {worst[k]:+.1f}% ({worst_at[k] or 'none'}; "
              f"target >= -2%); largest time difference at 1 MiB {worst_time[k]:+.2f} us (target within 1 us)")
    return references


def best_mode_table(run_dir, references):
    by_size = {}
    for r in json.load(open(run_dir + "/run.json"))["records"]:
        mode = r.get("buffers", "cuda-malloc") + " + " + r.get("launch", "stream")
        by_size.setdefault((r["collective"], r["size_bytes"], r["placement"]), []).append((r["busbw_gbps"], mode))
    print()
    print(f"Best buffer/launch mode per size ({run_dir}), against nccl-tests' default; "
          f"share of the {NVLINK_PEAK_GBPS:.0f} GB/s NVLink peak")
    print()
    print("| collective | size | placement | nccl-tests busbw | best mode | best busbw | vs nccl-tests | "
          "share of peak | cuda-malloc + stream busbw |")
    print("|---|---:|---|---:|---|---:|---:|---:|---:|")
    for (collective, size, placement), results in sorted(by_size.items()):
        best_busbw, best = max(results)
        default = next((b for b, m in results if m == "cuda-malloc + stream"), float("nan"))
        ref = references.get(collective, {}).get((size, placement))
        ref_busbw = ref[1] if ref else float("nan")
        gain = f"{(best_busbw / ref_busbw - 1) * 100:+.1f}%" if ref else "n/a"
        print(f"| {collective} | {size} | {placement} | {ref_busbw:.2f} | {best} | {best_busbw:.2f} | {gain} | "
              f"{best_busbw / NVLINK_PEAK_GBPS * 100:.1f}% | {default:.2f} |")


def main(argv):
    modes = None
    if argv[:1] == ["--modes"]:
        modes, argv = argv[1], argv[2:]
    if not argv or len(argv) % 3:
        sys.exit(__doc__)
    references = fidelity_table(list(zip(argv[0::3], argv[1::3], argv[2::3])))
    if modes:
        try:
            best_mode_table(modes, references)
        except (OSError, ValueError, KeyError) as e:
            print(f"\nbest mode table: {modes} unreadable ({e})")


if __name__ == "__main__":
    main(sys.argv[1:])
