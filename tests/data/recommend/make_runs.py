#!/usr/bin/env python3
"""Writes the fabricated sweep runs the `recommend` tests read (tests/unit/recommend/).

Each case is one results directory with a run.json in the results schema
(docs/results.md): sweep points with their verified settings, and records whose busbw
is a baseline figure times a per-point, per-size factor, with three repeats 0.5% apart,
so compare's noise band (a share of busbw, 4% by default) decides. Run it from anywhere; it rewrites the case
directories next to itself deterministically (no clocks, no randomness).

    python3 tests/data/recommend/make_runs.py
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
MiB = 1 << 20
REPEAT_JITTER = (-0.005, 0.0, 0.005)
NCCL_NAME = {"all_gather": "AllGather", "reduce_scatter": "ReduceScatter", "all_reduce": "AllReduce"}


def setting(name, value, kind="env_reread", status="applied"):
    return {"name": name, "value": value, "kind": kind, "status": status}


def point(label, settings, group=0, status="ok", algorithms=()):
    return {"label": label, "group": group, "status": status, "error": "", "settings": settings,
            "init_time_us": {"min": 0, "avg": 0, "max": 0}, "coll_channels": 24, "transports": ["P2P/CUMEM"],
            "algorithms": list(algorithms)}


def logged(collective, sizes, ranks, choice):
    """NCCL's TUNING lines as run.json keeps them: AllGather/ReduceScatter log one rank's share."""
    per_rank = collective in ("all_gather", "reduce_scatter")
    return ["%s %d B: %s" % (NCCL_NAME[collective], size // ranks if per_rank else size, choice) for size in sizes]


def busbw_factor(collective, ranks):
    return 2 * (ranks - 1) / ranks if collective == "all_reduce" else (ranks - 1) / ranks


def records(collective, sizes, ranks, label, gain_at, base_busbw=100.0):
    """Three repeats per size; busbw = base x (1 + gain) x (1 + jitter)."""
    out = []
    for size in sizes:
        for repeat, jitter in enumerate(REPEAT_JITTER):
            busbw = base_busbw * (1 + gain_at(size)) * (1 + jitter)
            algbw = busbw / busbw_factor(collective, ranks)
            time_us = size / algbw / 1e3
            out.append({
                "collective": collective, "dtype": "bfloat16", "op": "none" if collective != "all_reduce" else "sum",
                "root": -1, "size_bytes": size, "requested_bytes": size, "count": size // 2 // (ranks if collective == "all_gather" else 1),
                "placement": "out_of_place", "ranks": ranks, "warmup": 5, "iters": 20,
                "time_us": {"min": time_us, "avg": time_us, "max": time_us},
                "host_time_us": {"min": time_us, "avg": time_us, "max": time_us},
                "algbw_gbps": algbw, "busbw_gbps": busbw, "wrong": 0, "point": label, "repeat": repeat,
                "spread": 0.002, "stopped_by": "spread"})
    return out


def run(name, ranks, hosts, points, recs, baseline=None, workload=None):
    doc = {
        "schema_version": 1, "name": name, "status": "complete", "fingerprint": "",
        "command_line": ["ncclsweep", "run", name + ".yaml"],
        "start_time": "2026-12-01T00:00:00Z", "end_time": "2026-12-01T00:10:00Z",
        "versions": {"ncclsweep": "0.1.0", "git_sha": "fabricated", "driver": "", "cuda_runtime": "13.0",
                     "nccl_header": "2.28.9", "nccl_library": "2.28.9", "mpi": ""},
        "settings": {"engine": "nccl", "warmup": 5, "iters": 0, "check": True},
        "hosts": ["node%d" % h for h in range(hosts)],
        "ranks": [{"rank": r, "host": "node%d" % (r * hosts // ranks), "local_rank": r % (ranks // hosts),
                   "gpu_index": r % (ranks // hosts), "gpu_name": "NVIDIA H200", "pci_bus_id": "", "environment": {}}
                  for r in range(ranks)],
        "notes": [], "points": points, "records": recs, "stragglers": []}
    if baseline:
        doc["baseline"] = baseline
    if workload:
        doc["workload"] = workload
        doc["iteration_times"] = []
    directory = os.path.join(HERE, name)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "run.json"), "w") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")


def by_size(table):
    return lambda size: table[size]


def proto_case(name, ll_gain):
    """Simple (the sweep's baseline) against LL on all_gather, 2 ranks on one node."""
    sizes = [1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB]
    points = [point("NCCL_PROTO=Simple", [setting("NCCL_PROTO", "Simple")],
                    algorithms=logged("all_gather", sizes, 2, "RING/SIMPLE, 24 channels")),
              point("NCCL_PROTO=LL", [setting("NCCL_PROTO", "LL")],
                    algorithms=logged("all_gather", sizes, 2, "RING/LL, 24 channels"))]
    recs = records("all_gather", sizes, 2, "NCCL_PROTO=Simple", lambda s: 0.0)
    recs += records("all_gather", sizes, 2, "NCCL_PROTO=LL", by_size(dict(zip(sizes, ll_gain))))
    run(name, 2, 1, points, recs, baseline="NCCL_PROTO=Simple")


def not_read_case():
    """A QPS point that NCCL never read (no IB here) measures +30%: never recommended.
    The sweep names no baseline, so the point without settings is the baseline."""
    sizes = [64 * MiB, 256 * MiB]
    points = [point("default", []),
              point("NCCL_IB_QPS_PER_CONNECTION=4",
                    [setting("NCCL_IB_QPS_PER_CONNECTION", "4", "env_process", "not-read")], group=1)]
    recs = records("all_gather", sizes, 8, "default", lambda s: 0.0)
    recs += records("all_gather", sizes, 8, "NCCL_IB_QPS_PER_CONNECTION=4", lambda s: 0.30)
    run("not-read", 8, 1, points, recs)


def mixed_case():
    """NCCL_PROTO x NCCL_MAX_NCHANNELS: LL wins small sizes and loses large ones, LL128 wins
    the middle, 16 channels win only at 1 GiB, 256 MiB has no clear winner."""
    sizes = [1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB, 1024 * MiB]
    table = {
        "NCCL_PROTO=LL NCCL_MAX_NCHANNELS=32": ("LL", "32", "RING/LL, 24 channels", [0.40, 0.30, 0.0, -0.2, -0.5, -0.5]),
        "NCCL_PROTO=LL128 NCCL_MAX_NCHANNELS=32": ("LL128", "32", "RING/LL128, 24 channels", [0.10, 0.10, 0.20, 0.20, 0.01, 0.0]),
        "NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=16": ("Simple", "16", "RING/SIMPLE, 16 channels", [-0.1, -0.1, -0.05, 0.0, 0.02, 0.10]),
        "NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=32": ("Simple", "32", "RING/SIMPLE, 24 channels", [0.0] * 6),
    }
    points, recs = [], []
    for group, (label, (proto, channels, choice, gains)) in enumerate(sorted(table.items())):
        points.append(point(label, [setting("NCCL_PROTO", proto), setting("NCCL_MAX_NCHANNELS", channels, "env_process")],
                            group=0 if channels == "32" else 1, algorithms=logged("all_gather", sizes, 2, choice)))
        recs += records("all_gather", sizes, 2, label, by_size(dict(zip(sizes, gains))))
    run("mixed", 2, 1, points, recs, baseline="NCCL_PROTO=Simple NCCL_MAX_NCHANNELS=32")


QPS_GAINS = {1 * MiB: -0.20, 256 * MiB: 0.25, 1024 * MiB: 0.30}


def qps_case(name, workload, gains_of=None, iteration_times=None):
    """NCCL_IB_QPS_PER_CONNECTION 1 vs 4 on 16 ranks over 2 nodes: 4 QPs lose 20% at 1 MiB
    and win 25-30% at the bucket sizes. Only a workload that sends no 1 MiB calls exports it.
    gains_of: collective -> {size: gain} where the collectives differ."""
    sizes = [1 * MiB, 256 * MiB, 1024 * MiB]
    points = [point("NCCL_IB_QPS_PER_CONNECTION=1", [setting("NCCL_IB_QPS_PER_CONNECTION", "1", "env_process")], group=0),
              point("NCCL_IB_QPS_PER_CONNECTION=4", [setting("NCCL_IB_QPS_PER_CONNECTION", "4", "env_process")], group=1)]
    recs = []
    for collective in ("all_gather", "reduce_scatter"):
        gains = (gains_of or {}).get(collective, QPS_GAINS)
        recs += records(collective, sizes, 16, "NCCL_IB_QPS_PER_CONNECTION=1", lambda s: 0.0)
        recs += records(collective, sizes, 16, "NCCL_IB_QPS_PER_CONNECTION=4", by_size(gains))
    run(name, 16, 2, points, recs, baseline="NCCL_IB_QPS_PER_CONNECTION=1", workload=workload)
    if iteration_times:
        path = os.path.join(HERE, name, "run.json")
        with open(path) as f:
            doc = json.load(f)
        doc["iteration_times"] = iteration_times
        with open(path, "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")


def iteration_ms(calls, ranks, gains):
    """Collective time per iteration: calls x size / algbw at busbw 100 x (1 + gain)."""
    total_us = 0.0
    for call in calls:
        algbw = 100.0 * (1 + gains[call["bytes"]]) / busbw_factor(call["collective"], ranks)
        total_us += call["calls"] * call["bytes"] / algbw / 1e3
    return total_us / 1e3


def channels_case():
    """Two channel caps both win +20% over NCCL's default (24 channels logged) at 64 MiB..1 GiB,
    within noise of each other: 32 channels measures a hair more, 8 channels costs a quarter
    of the SMs. The cheaper is chosen."""
    sizes = [64 * MiB, 256 * MiB, 1024 * MiB]
    points = [point("default", [], algorithms=logged("all_gather", sizes, 8, "RING/SIMPLE, 24 channels")),
              point("NCCL_MAX_NCHANNELS=8", [setting("NCCL_MAX_NCHANNELS", "8", "env_process")], group=1,
                    algorithms=logged("all_gather", sizes, 8, "RING/SIMPLE, 8 channels")),
              point("NCCL_MAX_NCHANNELS=32", [setting("NCCL_MAX_NCHANNELS", "32", "env_process")], group=2,
                    algorithms=logged("all_gather", sizes, 8, "RING/SIMPLE, 32 channels"))]
    recs = records("all_gather", sizes, 8, "default", lambda s: 0.0)
    recs += records("all_gather", sizes, 8, "NCCL_MAX_NCHANNELS=8", lambda s: 0.20)
    recs += records("all_gather", sizes, 8, "NCCL_MAX_NCHANNELS=32", lambda s: 0.21)
    run("tied-channels", 8, 1, points, recs, baseline="default")


def verify_case(name, gains, tuned_choices):
    """What `run --verify-recommendation nccl_tuner.conf` leaves: NCCL's defaults (its own
    isolation group) and the tuner point, whose TUNING lines show what NCCL chose."""
    sizes = [1 * MiB, 4 * MiB, 16 * MiB]
    tuned = "NCCL_TUNER_PLUGIN=/opt/libncclsweep-tuner.so NCCL_TUNER_CONFIG_FILE=/jobs/nccl_tuner.conf"
    points = [point("default", [], algorithms=[l for s in sizes for l in logged("all_gather", [s], 2, "RING/SIMPLE, 24 channels")]),
              point(tuned, [setting("NCCL_TUNER_PLUGIN", "/opt/libncclsweep-tuner.so", "env_process"),
                            setting("NCCL_TUNER_CONFIG_FILE", "/jobs/nccl_tuner.conf", "env_process", "not-read")],
                    group=1, algorithms=[l for s, c in zip(sizes, tuned_choices) for l in logged("all_gather", [s], 2, c)])]
    recs = records("all_gather", sizes, 2, "default", lambda s: 0.0)
    recs += records("all_gather", sizes, 2, tuned, by_size(dict(zip(sizes, gains))))
    run(name, 2, 1, points, recs, baseline="default")


def main():
    proto_case("clear-winner", [0.30, 0.30, 0.25, 0.01])
    proto_case("noise-win", [0.05, 0.05, 0.05, 0.05])
    # LL wins 1-16 MiB and loses 20% at 64 MiB: the classic job-wide regression.
    proto_case("band-split", [0.30, 0.30, 0.25, -0.20])
    channels_case()
    not_read_case()
    mixed_case()
    qps_case("qps-grid", None)
    bucket_calls = [{"collective": c, "bytes": b, "dtype": "bfloat16", "group": "dp", "group_size": 16, "calls": n,
                     "origin": "grad bucket"} for c in ("all_gather", "reduce_scatter")
                    for b, n in ((256 * MiB, 10), (1024 * MiB, 2))]
    verify_case("verify-tuned", [0.30, 0.25, 0.0], ["RING/LL, 24 channels", "RING/LL, 24 channels", "RING/SIMPLE, 24 channels"])
    verify_case("verify-slower", [-0.20, -0.25, -0.30], ["RING/LL, 24 channels"] * 3)
    qps_case("qps-workload", {"source": "fabricated.yaml", "basis": "per iteration", "calls": bucket_calls})
    # 4 QPs win all_gather at 256 MiB and 1 GiB but reduce_scatter only at 1 GiB (a tie at
    # 256 MiB): the job that carries it sends those sizes of those collectives.
    qps_case("qps-uneven", None, gains_of={"reduce_scatter": {1 * MiB: -0.20, 256 * MiB: 0.0, 1024 * MiB: 0.30}})
    # A job that sends both many 1 MiB calls and a few 1 GiB buckets: no setting holds at
    # both, and over the iteration 4 QPs take less time.
    mixed_calls = [{"collective": c, "bytes": b, "dtype": "bfloat16", "group": "dp", "group_size": 16, "calls": n,
                    "origin": "fabricated"} for c in ("all_gather", "reduce_scatter") for b, n in ((1 * MiB, 200), (1024 * MiB, 2))]
    qps_case("qps-iteration", {"source": "fabricated-mixed.yaml", "basis": "per iteration", "calls": mixed_calls},
             iteration_times=[{"point": p, "ms": round(iteration_ms(mixed_calls, 16, g), 6), "measured": 4, "interpolated": 0,
                               "missing": 0}
                              for p, g in (("NCCL_IB_QPS_PER_CONNECTION=1", {1 * MiB: 0.0, 1024 * MiB: 0.0}),
                                           ("NCCL_IB_QPS_PER_CONNECTION=4", QPS_GAINS))])


if __name__ == "__main__":
    main()
