#!/usr/bin/env python3
"""Prints a sweep run's points (settings, verification, init time) and busbw per point.

Usage: sweep_table.py RUN_DIR [--size BYTES]
"""
import json
import sys


def main(argv):
    run = json.load(open(argv[0] + "/run.json"))
    only = int(argv[argv.index("--size") + 1]) if "--size" in argv else None
    print(f"## {run['name']}: {len(run['points'])} points, {len(run['ranks'])} ranks")
    print("| point | group | status | settings | init ms (max) | channels | transports |")
    print("|---|---:|---|---|---:|---:|---|")
    for p in run["points"]:
        settings = ", ".join(f"{s['name']}={s['value']}: {s['status']}" for s in p["settings"]) or "-"
        print(f"| {p['label']} | {p.get('isolation_group', p.get('group'))} | {p['status']} | {settings} | {p['init_time_us']['max'] / 1e3:.1f} | "
              f"{p['coll_channels']} | {' '.join(p['transports'])} |")
    labels = [p["label"] for p in run["points"]]
    rows = {}
    for r in run["records"]:
        if r["placement"] != "out_of_place" or (only and r["size_bytes"] != only):
            continue
        rows.setdefault((r["collective"], r["size_bytes"]), {})[r["point"]] = r["busbw_gbps"]
    print()
    print("| collective | size | " + " | ".join(labels) + " |")
    print("|---|---:|" + "---:|" * len(labels))
    for (collective, size), by_point in sorted(rows.items()):
        cells = [f"{by_point[l]:.1f}" if l in by_point else "-" for l in labels]
        print(f"| {collective} | {size} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1:])
