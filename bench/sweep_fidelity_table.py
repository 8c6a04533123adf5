#!/usr/bin/env python3
"""Sweep fidelity: the 9-point grid measured by one ncclsweep launch against the same grid
as the nccl-tests loop, cell by cell (size x placement x point x collective).

Usage: sweep_fidelity_table.py OUT_DIR
OUT_DIR/nccl-tests/<proto>-<channels>-<collective>.txt: the loop's logs;
OUT_DIR/<way>/run.json: ncclsweep launches (one: --iters 20, default footprint; exact:
the same with --buffer-footprint exact, when present); OUT_DIR/times: "<what> <seconds>"
lines. Prints per size the median and max |delta| of busbw, the targets, and the times.
"""
import glob
import json
import os
import statistics
import sys

MEDIAN_TARGET, MAX_TARGET = 0.005, 0.03  # at every size >= 1 MiB
RATIO_TARGET_FIXED, RATIO_TARGET_NOISE = 0.33, 0.25


def nccl_tests_cells(path, point, collective):
    """(point, collective, size, placement) -> busbw from one nccl-tests text log."""
    cells, in_table = {}, False
    for line in open(path):
        words = line.split()
        if line.startswith("#") and len(words) > 2 and words[1] == "size":
            in_table = True
            continue
        if not in_table or not words or not words[0].isdigit() or len(words) < 13:
            continue
        size = int(words[0])
        for placement, column in (("out_of_place", 7), ("in_place", 11)):
            try:
                cells[(point, collective, size, placement)] = float(words[column])
            except ValueError:
                pass  # N/A
    return cells


def sweep_cells(run_dir):
    path = os.path.join(run_dir, "run.json")
    if not os.path.exists(path):
        return {}
    cells = {}
    for r in json.load(open(path))["records"]:
        cells[(r["point"], r["collective"], r["size_bytes"], r["placement"])] = r["busbw_gbps"]
    return cells


def size_text(size):
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):g} {unit}"
    return f"{size} B"


def main(out):
    loop = {}
    for log in glob.glob(os.path.join(out, "nccl-tests", "*-*-*.txt")):
        proto, channels, collective = os.path.basename(log)[:-4].split("-", 2)
        loop.update(nccl_tests_cells(log, f"NCCL_PROTO={proto} NCCL_MAX_NCHANNELS={channels}", collective))
    ways = {way: sweep_cells(os.path.join(out, way)) for way in ("one", "exact")}
    one = ways["one"]
    both = sorted(set(one) & set(loop))
    if not both:
        print("no cell measured both ways: see the logs in", out)
        return 1
    print(f"## Sweep fidelity: one ncclsweep launch vs the nccl-tests loop, {len(both)} cells\n")
    header = "| size | cells | median \\|delta\\| | max \\|delta\\| (cell) | target |"
    if ways["exact"]:
        header += " exact footprint: median delta |"
    print(header)
    print("|---:|---:|---:|---|---|" + ("---:|" if ways["exact"] else ""))
    met = True
    for size in sorted({k[2] for k in both}):
        keys = [k for k in both if k[2] == size and loop[k] > 0]
        deltas = [one[k] / loop[k] - 1 for k in keys]
        worst = max(range(len(keys)), key=lambda i: abs(deltas[i]))
        median = statistics.median(abs(d) for d in deltas)
        ok = size < (1 << 20) or (median <= MEDIAN_TARGET and abs(deltas[worst]) <= MAX_TARGET)
        met = met and ok
        k = keys[worst]
        row = (f"| {size_text(size)} | {len(keys)} | {median * 100:.2f}% | {deltas[worst] * 100:+.2f}% "
               f"({k[0]} {k[1]} {k[3]}) | {'met' if ok else 'NOT met'} |")
        if ways["exact"]:
            exact = [ways["exact"][k] / loop[k] - 1 for k in keys if k in ways["exact"]]
            row += f" {statistics.median(exact) * 100:+.2f}% |" if exact else " - |"
        print(row)
    print(f"\nbusbw targets (median |delta| <= {MEDIAN_TARGET:.1%}, max <= {MAX_TARGET:.0%} at every size >= 1 MiB): "
          f"{'met' if met else 'NOT met'}")
    times = {}
    if os.path.exists(os.path.join(out, "times")):
        for line in open(os.path.join(out, "times")):
            what, seconds = line.split()
            times[what] = float(seconds)
    if "loop" in times:
        print("\n| way | seconds | / loop | target |")
        print("|---|---:|---:|---|")
        print(f"| nccl-tests loop, 18 launches | {times['loop']:.1f} | 1 | |")
        for what, label, target in (("one", "one launch, --iters 20", RATIO_TARGET_FIXED),
                                    ("noise", "one launch, noise-based stop", RATIO_TARGET_NOISE)):
            if what in times:
                ratio = times[what] / times["loop"]
                print(f"| {label} | {times[what]:.1f} | {ratio:.3f} | <= {target} {'met' if ratio <= target else 'NOT met'} |")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
