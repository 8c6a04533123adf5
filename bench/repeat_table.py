#!/usr/bin/env python3
"""Max/min busbw over a run's repeats, per collective, size and placement.

Usage: repeat_table.py RUN_DIR [--min-size BYTES] [--target RATIO]
The last lines: the table, then the worst ratio at sizes >= min-size against the target.
"""
import json
import sys


def main(argv):
    run = json.load(open(argv[0] + "/run.json"))
    min_size = int(argv[argv.index("--min-size") + 1]) if "--min-size" in argv else 0
    target = float(argv[argv.index("--target") + 1]) if "--target" in argv else 1.01
    cells = {}
    for r in run["records"]:
        key = (r["collective"], r["size_bytes"], r["placement"], r.get("point", "default"))
        cells.setdefault(key, []).append(r["busbw_gbps"])
    worst = None
    print("| collective | size | placement | point | repeats | min busbw | max busbw | max/min |")
    print("|---|---:|---|---|---:|---:|---:|---:|")
    for (collective, size, placement, point), values in sorted(cells.items()):
        ratio = max(values) / min(values) if min(values) > 0 else float("inf")
        if size >= min_size and (worst is None or ratio > worst[0]):
            worst = (ratio, collective, size, placement)
        print(f"| {collective} | {size} | {placement} | {point} | {len(values)} | {min(values):.2f} | "
              f"{max(values):.2f} | {ratio:.4f} |")
    # The repeats in the order they ran, where the target is missed: drift or one outlier?
    for (collective, size, placement, point), values in sorted(cells.items()):
        if size >= min_size and min(values) > 0 and max(values) / min(values) > target:
            print(f"  {collective} {size} {placement} {point}: " + " ".join(f"{v:.1f}" for v in values))
    if worst is None:
        print(f"no sizes >= {min_size}")
        return 1
    verdict = "met" if worst[0] <= target else "NOT met"
    print(f"worst max/min at >= {min_size} B: {worst[0]:.4f} ({worst[1]} {worst[2]} {worst[3]}); "
          f"target <= {target}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
