#!/usr/bin/env python3
"""Do the one-launch grid and the nine single launches measure the same thing, as
repeatably? From bench/time-to-result's rounds.

Usage: ttr_agreement.py OUT_DIR ROUNDS
OUT_DIR/round<i>/one is the one-launch run; OUT_DIR/round<i>/single-<proto>-<channels>
the single launches. Per (point, collective, size, placement): the median busbw over
rounds of each way, and each way's max/min over rounds.
"""
import glob
import json
import os
import statistics
import sys


def cells(run_dir, point=None):
    out = {}
    path = os.path.join(run_dir, "run.json")
    if not os.path.exists(path):
        return out
    for r in json.load(open(path))["records"]:
        key = (point or r.get("point", "default"), r["collective"], r["size_bytes"], r["placement"])
        out[key] = r["busbw_gbps"]
    return out


def main(argv):
    out, rounds = argv[0], int(argv[1])
    one, nine = {}, {}
    for i in range(1, rounds + 1):
        for key, bw in cells(f"{out}/round{i}/one").items():
            one.setdefault(key, []).append(bw)
        for single in glob.glob(f"{out}/round{i}/single-*-*"):
            if not os.path.isdir(single):
                continue
            _, proto, channels = os.path.basename(single).split("-")
            for key, bw in cells(single, f"NCCL_PROTO={proto} NCCL_MAX_NCHANNELS={channels}").items():
                nine.setdefault(key, []).append(bw)
    both = sorted(set(one) & set(nine))
    if not both:
        print("no measurement in both ways")
        return 1
    deltas = [statistics.median(one[k]) / statistics.median(nine[k]) - 1 for k in both]
    worst = max(range(len(both)), key=lambda i: abs(deltas[i]))
    print(f"one launch vs nine launches, median busbw over {rounds} rounds, {len(both)} measurements:")
    print(f"  median |delta| {statistics.median(abs(d) for d in deltas) * 100:.2f}%, "
          f"worst {deltas[worst] * 100:+.2f}% ({' '.join(map(str, both[worst]))})")
    if rounds > 1:
        print("| way | max/min over rounds, median | worst (sizes >= 64 MiB) |")
        print("|---|---:|---:|")
        for name, table in (("one launch", one), ("nine launches", nine)):
            ratios = [max(v) / min(v) for k, v in table.items() if len(v) > 1 and k[2] >= 64 << 20 and min(v) > 0]
            if ratios:
                print(f"| {name} | {statistics.median(ratios):.4f} | {max(ratios):.4f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
