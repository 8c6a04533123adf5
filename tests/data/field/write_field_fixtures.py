#!/usr/bin/env python3
"""Writes the inputs-from-the-field fixtures in this directory (see README.md).

Each file imitates, byte for byte where the format is fixed, what one release of
nccl-tests, NCCL, RCCL or PyTorch prints, with the wrappers real jobs put around it
(launcher prefixes, NCCL's own timestamps, several tests in one file). The figures
come from a simple latency + bandwidth model, formatted the way that release formats
them, so every printed digit is one the release could print. They are NOT copies of
real files.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# ---------------------------------------------------------------------------------
# nccl-tests text


def model_time_us(size, ranks, factor, latency_us, link_gbps):
    """A call's time: a launch latency plus the bus bytes over the link."""
    return latency_us + size * factor / (link_gbps * 1e3)


def time_text_fixed(t):
    """Releases before 2.19: the time's decimals follow its magnitude."""
    if t >= 10000.0:
        return "%7.0f" % t
    if t >= 100.0:
        return "%7.1f" % t
    return "%7.2f" % t


def float_text(value, width):
    """nccl-tests 2.19's getFloatStr: 2 decimals, fewer when the width is full."""
    for fmt in ("%*.2f", "%*.1f", "%*.0f"):
        s = fmt % (width, value)
        if len(s) <= width:
            return s
    return ("%*.1e" if width >= 7 else "%*.0e") % (width, value)


def g(value):
    """C's %g."""
    return "%g" % value


class Program:
    """What one nccl-tests program prints and how its figures relate."""

    def __init__(self, name, op, root, per_rank, factor):
        self.name, self.op, self.root, self.per_rank, self.factor = name, op, root, per_rank, factor


def all_reduce_factor(n):
    return 2.0 * (n - 1) / n


def ring(n):
    return (n - 1) / n


PROGRAMS = {
    "all_reduce": Program("all_reduce", "sum", -1, False, all_reduce_factor),
    "all_gather": Program("all_gather", "", -1, True, ring),
    "reduce_scatter": Program("reduce_scatter", "sum", -1, True, ring),
    "broadcast": Program("broadcast", "", 0, False, lambda n: 1.0),
}


def rows(program, ranks, sizes, latency_us, link_gbps, type_bytes=4, old_factor=False):
    """(size, count, [(time, algbw, busbw)] x 2 placements), as the program computes them."""
    out = []
    for i, size in enumerate(sizes):
        count = size // type_bytes // (ranks if program.per_rank else 1)
        size = count * type_bytes * (ranks if program.per_rank else 1)
        factor = program.factor(ranks)
        placements = []
        for place in range(2):
            t = model_time_us(size, ranks, factor, latency_us * (1 + 0.03 * ((i + place) % 3)), link_gbps)
            if old_factor and program.per_rank:
                # before 2020, all_gather and reduce_scatter counted (n-1) shares and a factor of 1
                algbw = count * type_bytes * (ranks - 1) / 1e3 / t
                busbw = algbw
            else:
                algbw = size / 1e3 / t
                busbw = algbw * factor
            placements.append((t, algbw, busbw))
        out.append((size, count, placements))
    return out


def average(table):
    values = [p[2] for _, _, placements in table for p in placements]
    return sum(values) / len(values)


def sizes_from(lo, hi, factor=2):
    s, out = lo, []
    while s <= hi:
        out.append(s)
        s *= factor
    return out


def header_2_0(has_redop, has_root, type_width):
    """2.0 - 2.11: a root column only for rooted programs; 'error' is the check's maximum error."""
    keys = ["# %10s  %12s  %*s" % ("", "", type_width, "")]
    names = ["# %10s  %12s  %*s" % ("size", "count", type_width, "type")]
    units = ["# %10s  %12s  %*s" % ("(B)", "(elements)", type_width, "")]
    if has_redop:
        keys.append("  %6s" % "")
        names.append("  %6s" % "redop")
        units.append("  %6s" % "")
    if has_root:
        keys.append("  %6s" % "")
        names.append("  %6s" % "root")
        units.append("  %6s" % "")
    keys.append("            out-of-place                       in-place          ")
    names.append("  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s" % ("time", "algbw", "busbw", "error", "time", "algbw", "busbw", "error"))
    units.append("  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s" % ("(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", ""))
    return ["".join(keys), "".join(names), "".join(units)]


def row_2_0(size, count, type_name, op, root, placements, type_width, has_redop, has_root):
    s = "%12d  %12d  %*s" % (size, count, type_width, type_name)
    if has_redop:
        s += "  %6s" % op
    if has_root:
        s += "  %6d" % root
    for t, algbw, busbw in placements:
        s += "  %7s  %6.2f  %6.2f  %5.0e" % (time_text_fixed(t), algbw, busbw, 0.0)
    return s


def header_2_13():
    return ["# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % ("", "", "", "", ""),
            "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s %6s  %7s  %6s  %6s %6s" % (
                "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"),
            "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %5s  %7s  %6s  %6s  %5s" % (
                "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "")]


def row_2_13(size, count, type_name, op, root, placements, checked=True):
    s = "%12d  %12d  %8s  %6s  %6s" % (size, count, type_name, op or "none", "%6d" % root)
    for t, algbw, busbw in placements:
        s += "  %7s  %6.2f  %6.2f  %5s" % (time_text_fixed(t), algbw, busbw, g(0) if checked else "N/A")
    return s


def rank_lines_2_0(ranks, hosts, gpu, pids, bus_ids):
    per_host = ranks // len(hosts)
    return ["#   Rank %2d Pid %6d on %10s device %2d [0x%02x] %s" % (r, pids[r // per_host], hosts[r // per_host], r % per_host,
                                                                     bus_ids[r % per_host], gpu) for r in range(ranks)]


def rank_lines_2_13(ranks, hosts, gpu, pids, bus_ids, bdf=False):
    per_host = ranks // len(hosts)
    out = []
    for r in range(ranks):
        where = "[%04x:%02x:%02x]" % (0, bus_ids[r % per_host], 0) if bdf else "[0x%02x]" % bus_ids[r % per_host]
        out.append("#  Rank %2d Group %2d Pid %6d on %10s device %2d %s %s" % (
            r, 0, pids[r // per_host], hosts[r // per_host], r % per_host, where, gpu))
    return out


BUS_IDS = [0x07, 0x0a, 0x47, 0x4d, 0x87, 0x8b, 0xc7, 0xca]


def write(path, lines):
    full = os.path.join(HERE, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write("\n".join(lines) + "\n")


def nccl_init_lines(host, pid, ranks, version):
    return ["%s:%d:%d [0] NCCL INFO Bootstrap : Using eth0:10.1.0.11<0>" % (host, pid, pid),
            "%s:%d:%d [0] NCCL INFO NCCL version %s" % (host, pid, pid, version),
            "%s:%d:%d [0] NCCL INFO comm 0x55e3c6b0 rank 0 nranks %d cudaDev 0 busId 7000 - Init COMPLETE" % (host, pid, pid + 61, ranks)]


def test_2_13(program, ranks, hosts, gpu, sizes, latency, link, first_pid=31200, with_init=None, checked=True):
    """nccl-tests 2.13 - 2.16: #wrong, a root column for every program, no program line."""
    p = PROGRAMS[program]
    table = rows(p, ranks, sizes, latency, link)
    lines = ["# nThread 1 nGpus 1 minBytes %d maxBytes %d step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: %d graph: 0"
             % (sizes[0], sizes[-1], 1 if checked else 0), "#", "# Using devices"]
    lines += rank_lines_2_13(ranks, hosts, gpu, [first_pid + i for i in range(ranks)], BUS_IDS)
    if with_init:
        lines += with_init
    lines += ["#"] + header_2_13()
    lines += [row_2_13(size, count, "float", p.op, p.root, pl, checked) for size, count, pl in table]
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : %s " % g(average(table)), "#"]
    return lines, table


def nccl_tests_text():
    # 1. allreduce.log: nccl-tests 2.13.8 all_reduce_perf on 8 A100s of one host, saved under
    #    the name engineers give it; NCCL_DEBUG=INFO lines before the table. Small sizes
    #    only, so the closing average has 6 digits the rows do not give back.
    sizes = sizes_from(8, 65536)
    init = nccl_init_lines("dgx-a01", 31200, 8, "2.14.3+cuda11.7")
    lines, _ = test_2_13("all_reduce", 8, ["dgx-a01"], "NVIDIA A100-SXM4-80GB", sizes, 24.0, 190.0, with_init=init)
    lines.append("")
    write("nccl-tests/allreduce.log", lines)

    # 2. reducescatter.log: nccl-tests 2.14 reduce_scatter_perf on 2 hosts x 4 GPUs.
    sizes = sizes_from(1 << 20, 1 << 30, 4)
    lines, _ = test_2_13("reduce_scatter", 8, ["node-017", "node-018"], "NVIDIA H100 80GB HBM3", sizes, 38.0, 42.0)
    write("nccl-tests/reducescatter.log", lines)

    # 3. run3.txt: nccl-tests 2.15 all_gather_perf -c 0 saved under a name that says
    #    nothing; unchecked, an all_gather table is also what alltoall_perf prints (checked,
    #    alltoall leaves its in-place #wrong N/A), so this one cannot be known.
    sizes = sizes_from(1 << 20, 1 << 28, 4)
    lines, _ = test_2_13("all_gather", 8, ["gpu-b07"], "NVIDIA H100 80GB HBM3", sizes, 21.0, 360.0, checked=False)
    write("nccl-tests/run3.txt", lines)

    # 4. results-node07.txt: nccl-tests 2.0 reduce_scatter_perf (2019): no root column, an
    #    'error' column, type 6 wide, the old all_gather/reduce_scatter bandwidth. Only
    #    reduce_scatter prints an op with a count per rank, so the table names it.
    p = PROGRAMS["reduce_scatter"]
    sizes = sizes_from(1 << 20, 1 << 27, 2)
    table = rows(p, 4, sizes, 45.0, 22.0, old_factor=True)
    lines = ["# nThread 1 nGpus 4 minBytes %d maxBytes %d step: 2(factor) warmup iters: 5 iters: 20 validation: 1 " % (sizes[0], sizes[-1]),
             "#", "# Using devices"]
    lines += rank_lines_2_0(4, ["node07"], "Tesla V100-SXM2-16GB", [40211], BUS_IDS)
    lines += ["#"] + header_2_0(True, False, 6)
    lines += [row_2_0(size, count, "float", "sum", -1, pl, 6, True, False) for size, count, pl in table]
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : %s " % g(average(table)), "#"]
    write("nccl-tests/results-node07.txt", lines)

    # 5. bcast-2node.log: nccl-tests 2.11 broadcast_perf under srun --label ("0: " before
    #    every line): a root column, a blank redop cell, 'error'.
    p = PROGRAMS["broadcast"]
    sizes = sizes_from(1 << 16, 1 << 26, 4)
    table = rows(p, 16, sizes, 30.0, 23.0)
    lines = ["# nThread 1 nGpus 1 minBytes %d maxBytes %d step: 4(factor) warmup iters: 5 iters: 20 validation: 1 " % (sizes[0], sizes[-1]),
             "#", "# Using devices"]
    lines += rank_lines_2_0(16, ["cn%03d" % h for h in range(2)], "NVIDIA A100-SXM4-40GB", [5501, 7713], BUS_IDS)
    lines += ["#"] + header_2_0(True, True, 8)
    lines += [row_2_0(size, count, "float", "", 0, pl, 8, True, True) for size, count, pl in table]
    lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : %s " % g(average(table)), "#"]
    write("nccl-tests/bcast-2node.log", ["0: " + l for l in lines])

    # 6. job-88412.out: nccl-tests 2.19.6 all_gather_perf under mpirun --tag-output: every
    #    line starts "[1,0]<stdout>:", and another rank's NCCL WARN goes to stderr between.
    p = PROGRAMS["all_gather"]
    sizes = sizes_from(1 << 20, 1 << 30, 4)
    table = rows(p, 4, sizes, 19.0, 300.0)
    lines = ["# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809",
             "# Collective test starting: all_gather_perf",
             "# nThread 1 nGpus 1 minBytes %d maxBytes %d step: 4(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0"
             % (sizes[0], sizes[-1]), "#", "# Using devices"]
    lines += rank_lines_2_13(4, ["hgx-03"], "NVIDIA H200", [70211, 70212, 70213, 70214], BUS_IDS, bdf=True)
    lines += ["#", "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          " % ("", "", "", "", ""),
              "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s " % (
                  "size", "count", "type", "redop", "root", "time", "algbw", "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"),
              "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s " % (
                  "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "")]
    for size, count, pl in table:
        s = "%12d  %12d  %8s  %6s  %6s" % (size, count, "float", "none", "%6d" % -1)
        for t, algbw, busbw in pl:
            s += "  %7s  %6s  %6s  %6s" % (float_text(t, 7), float_text(algbw, 6), float_text(busbw, 6), g(0))
        lines.append(s)
    lines += ["# %-20s : %d %s" % ("Out of bounds values", 0, "OK"), "# %-20s : %s " % ("Avg bus bandwidth", g(average(table))),
              "#", "# Collective test concluded: all_gather_perf", "#"]
    tagged = ["[1,0]<stdout>:" + l for l in lines]
    tagged.insert(9, "[1,2]<stderr>:hgx-03:70213:70290 [2] NCCL INFO NET/IB : No device found.")
    write("nccl-tests/job-88412.out", tagged)

    # 7. ar-I1-S1-C1.txt: nccl-tests 2.19.6 all_reduce_perf -I 1 -S 1 -C 1: cputime, the
    #    per-iteration columns and a timestamp at the end of every row.
    p = PROGRAMS["all_reduce"]
    sizes = sizes_from(1 << 20, 1 << 26, 4)
    table = rows(p, 2, sizes, 16.0, 340.0)
    ts_pad = 19
    head = ["# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809",
            "# Collective test starting: all_reduce_perf",
            "# nThread 1 nGpus 2 minBytes %d maxBytes %d step: 4(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0"
            % (sizes[0], sizes[-1]),
            "# Per-Iteration Report: CUDA event timing; i_* uses max over process rows ", "#", "# Using devices"]
    head += rank_lines_2_13(2, ["vm"], "NVIDIA H200", [1518, 1518], [0x06, 0x07], bdf=True)
    head += ["#", "# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)                                in-place (+ per-iteration)"
             % ("", "", "", "", "")]
    cols = ("size", "count", "type", "redop", "root", "cputime", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%",
            "cputime", "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%")
    fmt = "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s %*s"
    head.append(fmt % (cols + (ts_pad, "timestamp")))
    units = ("(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)",
             "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)")
    head.append(fmt % (units + (ts_pad, "%Y-%m-%d %H:%M:%S")))
    body = []
    for i, (size, count, pl) in enumerate(table):
        s = "%12d  %12d  %8s  %6s  %6s" % (size, count, "float", "sum", "%6d" % -1)
        for t, algbw, busbw in pl:
            s += "  %7s  %6s  %6s  %6s" % (float_text(t, 7), float_text(algbw, 6), float_text(busbw, 6), g(0))
            s += "  %7s  %7s  %7s  %7s" % (float_text(t * 0.97, 7), float_text(t * 1.08, 7), float_text(t * 1.08, 7), float_text(1.4, 7))
        s += "%21s" % ("2026-07-10 09:15:%02d" % (2 + i))
        body.append(s)
    tail = ["# %-20s : %d %s" % ("Out of bounds values", 0, "OK"), "# %-20s : %s " % ("Avg bus bandwidth", g(average(table))),
            "#", "# Collective test concluded: all_reduce_perf", "#"]
    write("nccl-tests/ar-I1-S1-C1.txt", head + body + tail)

    # 8. nccl-tests-sweep.log: a batch script ran two 2.14 programs into one file; its
    #    `set -x` lines name each program, NCCL's INFO lines come between.
    sweep = ["+ export NCCL_DEBUG=INFO", "+ mpirun -np 4 --bind-to numa ./build/all_reduce_perf -b 1M -e 64M -f 4 -g 1"]
    lines, _ = test_2_13("all_reduce", 4, ["sxm-11"], "NVIDIA A100-SXM4-80GB", sizes_from(1 << 20, 1 << 26, 4), 18.0, 210.0,
                         first_pid=9100, with_init=nccl_init_lines("sxm-11", 9100, 4, "2.15.5+cuda12.0"))
    sweep += lines
    sweep += ["+ mpirun -np 4 --bind-to numa ./build/all_gather_perf -b 1M -e 64M -f 4 -g 1"]
    lines, _ = test_2_13("all_gather", 4, ["sxm-11"], "NVIDIA A100-SXM4-80GB", sizes_from(1 << 20, 1 << 26, 4), 17.0, 220.0,
                         first_pid=9300, with_init=nccl_init_lines("sxm-11", 9300, 4, "2.15.5+cuda12.0"))
    sweep += lines
    write("nccl-tests/nccl-tests-sweep.log", sweep)


# ---------------------------------------------------------------------------------
# nccl-tests -J JSON (src/util.cu: version 1 from 2.17.4, 2 with -I from 2.19.2)


def json_doc(version, program, ranks, table, type_name, redop, per_iter, misspelt_average):
    devices = [{"rank": r, "group": 0, "pid": 2200 + r, "hostname": "hgx-03", "device": r,
                "device_hex": "0000:%02x:00" % BUS_IDS[r], "device_info": "NVIDIA H100 80GB HBM3"} for r in range(ranks)]
    results = []
    for size, count, pl in table:
        r = {"size": size, "count": count, "type": type_name, "redop": redop, "root": "%6d" % -1}
        for (t, algbw, busbw), place in zip(pl, ("out_of_place", "in_place")):
            r[place] = {"time": t, "alg_bw": algbw, "bus_bw": busbw, "nwrong": 0.0}
            if per_iter:
                r[place + "_per_iter"] = {"min_us": t * 0.97, "max_us": t * 1.09, "avg_us": t, "p50_us": t * 0.99,
                                          "p95_us": t * 1.06, "p99_us": t * 1.09, "stdev_us": t * 0.02, "cv_pct": 2.0,
                                          "times_us": [t * 0.99, t * 0.97, t * 1.09]}
        r["actual_iterations"] = 20
        r["experiment_name"] = ""
        results.append(r)
    average_key, bandwidth_key = ("average_bus_bandwidith", "bandwidith") if misspelt_average else ("average_bus_bandwidth", "bandwidth")
    config = {"nthreads": 1, "ngpus": 1, "minimum_bytes": table[0][0], "maximum_bytes": table[-1][0], "step_factor": 4,
              "warmup_iters": 5, "iterations": 20, "aggregated_iterations": 1, "validation": 1, "graph": 0,
              "blocking_collectives": "false", "parallel_init": "false"}
    if version >= 2:
        config["per_iter_timing"] = "true" if per_iter else "false"
    config["devices"] = [devices[0]]  # with MPI, the first rank of each process: one process here
    config["nthreads"] = 1
    config["ngpus"] = ranks
    return {"version": version, "start_time": "2026-02-01 10:00:00",
            "args": ["./build/%s_perf" % program, "-b", "1M", "-e", "64M", "-f", "4", "-g", str(ranks), "-J", "out.json"],
            "env": ["NCCL_DEBUG=WARN"], "nccl_version": 22809, "config": config, "results": results,
            "out_of_bounds": {"count": 0, "okay": "true"},
            average_key: {bandwidth_key: round(average(table), 6), "okay": "unchecked"}, "errors": [],
            "end_time": "2026-02-01 10:00:04"}


def nccl_tests_json():
    sizes = sizes_from(1 << 20, 1 << 26, 4)
    table = rows(PROGRAMS["reduce_scatter"], 4, sizes, 20.0, 300.0)
    with open(os.path.join(HERE, "nccl-tests/reduce_scatter_perf-v1.json"), "w") as f:
        json.dump(json_doc(1, "reduce_scatter", 4, table, "float", "sum", False, True), f)
    table = rows(PROGRAMS["all_reduce"], 4, sizes, 18.0, 310.0)
    with open(os.path.join(HERE, "nccl-tests/all_reduce_perf-v2.json"), "w") as f:
        json.dump(json_doc(2, "all_reduce", 4, table, "float", "sum", True, False), f)


# ---------------------------------------------------------------------------------
# NCCL and RCCL COLL logs


def coll(name, op_count, count, dtype, op, root, nranks, comm="0x55e3c6b0", stream="0x55e3c9f0", extra=""):
    return ("%s: opCount %x sendbuff 0x7f3a40000000 recvbuff 0x7f3a48000000 count %d datatype %d op %d root %d comm %s "
            "[nranks=%d] stream %s%s" % (name, op_count, count, dtype, op, root, comm, nranks, stream, extra))


STEP = [("AllGather", 6298112, 9, 0), ("AllGather", 6298112, 9, 0), ("ReduceScatter", 6298112, 7, 4), ("AllReduce", 262144, 7, 0)]


def nccl_logs():
    # NCCL 2.27 with NCCL_DEBUG_TIMESTAMP_LEVELS=INFO (default format "[%F %T] "): the
    # time changes from line to line, NCCL's "host:pid:tid [dev]" does not.
    for rank in range(2):
        pid = 4100 + rank
        out = []
        second = 0
        for step in range(3):
            for i, (name, count, dtype, op) in enumerate(STEP):
                second += 1
                stamp = "[2026-06-01 12:%02d:%02d] " % (second // 60, second % 60)
                out.append(stamp + "gpu-a:%d:%d [%d] NCCL INFO " % (pid, pid + 87, rank) +
                           coll(name, step * len(STEP) + i, count, dtype, op, 0, 2))
        write("nccl-logs/timestamps-2.27/nccl.gpu-a.%d.log" % pid,
              ["[2026-06-01 12:00:00] gpu-a:%d:%d [%d] NCCL INFO NCCL version 2.27.5+cuda12.9" % (pid, pid, rank)] + out)
    # A format with subseconds and no brackets ("%F %T.%3f "), one file per rank too.
    for rank in range(2):
        pid = 5100 + rank
        out = ["2026-06-02 08:00:00.%03d gpu-b:%d:%d [%d] NCCL INFO " % (7 * k % 1000, pid, pid + 3, rank) +
               coll(name, k, count, dtype, op, 0, 2) for k, (name, count, dtype, op) in enumerate(STEP * 2)]
        write("nccl-logs/timestamps-subseconds/nccl.gpu-b.%d.log" % pid, out)

    # Ray Train: every worker's stderr in one driver log, each line behind the worker's tag.
    ray = []
    workers = [("r24-worker-l4-8-fqztx", 615, "10.72.7.6"), ("r24-worker-l4-8-srrss", 22754, "10.72.12.6")]
    for step in range(2):
        for host, pid, ip in workers:
            for dev in range(2):
                for i, (name, count, dtype, op) in enumerate(STEP):
                    ray.append("(RayTrainWorker pid=%d, ip=%s) %s:%d:%d [%d] NCCL INFO " % (pid + dev, ip, host, pid + dev, 18953 + dev, dev) +
                               coll(name, step * 4 + i, count, dtype, op, 0, 4))
    write("nccl-logs/ray/driver.log", ray)

    # mpirun --tag-output: the tag glued to NCCL's host field, both ranks in one stream.
    tagged = []
    for k, (name, count, dtype, op) in enumerate(STEP * 2):
        for rank in range(2):
            tagged.append("[1,%d]<stderr>:node-%d:%d:%d [0] NCCL INFO " % (rank, rank + 1, 3300 + rank, 3310 + rank) +
                          coll(name, k, count, dtype, op, 0, 2))
    tagged.insert(1, "[1,0]<stdout>:step 0 loss 10.53")
    write("nccl-logs/tag-output/job.log", tagged)

    # srun --label ("0: ") for the ranks of one host, Intel MPI's -prepend-rank ("[2] ") for
    # the other's, in one stream: 4 ranks of one job.
    labelled = []
    for k, (name, count, dtype, op) in enumerate(STEP * 2):
        for rank in range(4):
            prefix = "%d: " % rank if rank < 2 else "[%d] " % rank
            labelled.append(prefix + "cn%02d:%d:%d [%d] NCCL INFO " % (1 + rank // 2, 8800 + rank % 2, 8900 + rank % 2, rank % 2) +
                            coll(name, k, count, dtype, op, 0, 4))
    write("nccl-logs/srun-label/job.log", labelled)

    # Two processes writing one stream: one line's start before another's whole line.
    merged = ["learnfair062:32619:32711 [2] NCCL INFO learnfair062:32629:32629 [7] NCCL INFO " +
              coll("Broadcast", 0, 53, 4, 0, 0, 8),
              "learnfair062:32619:32711 [2] NCCL INFO " + coll("Broadcast", 0, 53, 4, 0, 0, 8),
              "learnfair062:32629:32629 [7] NCCL INFO " + coll("Broadcast", 1, 25503912, 6, 0, 0, 8),
              "learnfair062:32619:32711 [2] NCCL INFO " + coll("Broadcast", 1, 25503912, 6, 0, 0, 8)]
    write("nccl-logs/interleaved/job.log", merged)

    # RCCL (ROCm 6): "task T globalrank G" after the stream; AllToAllv lines name no count.
    rccl = []
    for rank in range(2):
        pid = 6100 + rank
        for k, (name, count, dtype, op) in enumerate(STEP):
            rccl.append("mi300-01:%d:%d [%d] NCCL INFO " % (pid, pid, rank) +
                        coll(name, k, count, dtype, op, 0, 2, extra=" task %d globalrank %d" % (k, rank)))
        rccl.append("mi300-01:%d:%d [%d] NCCL INFO AllToAllv: opCount 4 sendbuff 0x7f3a40000000 sendcounts 0x55e3c000 "
                    "sdispls 0x55e3c100 recvbuff 0x7f3a48000000 recvcounts 0x55e3c200 rdispls 0x55e3c300 datatype 7 "
                    "typesize 4 op 0 root 0 comm 0x55e3c6b0 [nranks=2] stream 0x55e3c9f0" % (pid, pid, rank))
        rccl.append("mi300-01:%d:%d [%d] NCCL INFO ## [012345.678901] [%02d:00] 000004 KL HWID 42300510 ncclDevFunc_AllReduce_RING_LL_Sum_f32"
                    % (pid, pid, rank, rank))
        rccl.append("mi300-01:%d:%d [%d] NCCL INFO " % (pid, pid, rank) + coll("Send", 5, 4096, 9, 0, 1 - rank, 2, extra=" task 5 globalrank %d" % rank))
        rccl.append("mi300-01:%d:%d [%d] NCCL INFO " % (pid, pid, rank) + coll("Recv", 5, 4096, 9, 0, 1 - rank, 2, extra=" task 6 globalrank %d" % rank))
    write("nccl-logs/rccl/rccl.log", rccl)

    # NCCL 2.3: the COLL line names no collective ("opCount" first, and a size field).
    old = ["dgx1:2201:2201 [0] NCCL INFO NCCL version 2.3.7+cuda9.2",
           "dgx1:2201:2201 [0] NCCL INFO opCount 0 sendbuff 0x7f3a40000000 recvbuff 0x7f3a48000000 count 1024 size 4096 "
           "datatype 7 op 0 comm 0x55e3c6b0 [nranks=2] stream 0x55e3c9f0"]
    write("nccl-logs/nccl-2.3/nccl.log", old)

    # A bracketed field between the level tag and the collective.
    bracketed = ["gpu-c:7100:7101 [0] NCCL INFO [0] " + coll(name, k, count, dtype, op, 0, 2)
                 for k, (name, count, dtype, op) in enumerate(STEP)]
    write("nccl-logs/bracketed/nccl.log", bracketed)


# ---------------------------------------------------------------------------------
# PyTorch traces from before record_param_comms carried the collective's metadata


def older_trace(world_size, rank, record_shapes, with_shapes, annotation_cat, distributed=True, backend="nccl"):
    events = []
    ts = 1000.0
    for step in range(2):
        events.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (step + 2), "pid": 2201, "tid": 2201,
                       "ts": ts, "dur": 9000.0, "args": {"External id": 1 + 100 * step}})
        calls = [("_all_gather_base", [[6298112]], ["c10::BFloat16"], "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)"),
                 ("_all_gather_base", [[6298112]], ["c10::BFloat16"], "ncclKernel_AllGather_RING_LL_Sum_int8_t(ncclWorkElem)"),
                 ("_reduce_scatter_base", [[12596224]], ["float"], "ncclKernel_ReduceScatter_RING_LL_Sum_float(ncclWorkElem)"),
                 ("all_reduce", [[1024, 256]], ["float"], "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"),
                 ("all_reduce_coalesced", [[512], [4096]], ["float", "float"], "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)"),
                 ("send 0->1" if rank == 0 else "recv 1<-0", [[64, 64]], ["c10::BFloat16"], "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclWorkElem)")]
        for k, (name, dims, types, kernel) in enumerate(calls):
            ts += 300.0
            ext = 2 + 100 * step + k
            # PyTorch 2.0 also records the c10d op and record_param_comms, without the metadata
            events.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 2201, "tid": 2201, "ts": ts, "dur": 40.0,
                           "args": {"External id": ext + 1000, "Record function id": 0, "Ev Idx": ext + 1000}})
            args = {"External id": ext, "Record function id": 0, "Ev Idx": ext}
            if with_shapes:
                args["Input Dims"] = dims
                args["Input type"] = types
            events.append({"ph": "X", "cat": annotation_cat, "name": "%s:%s" % (backend, name), "pid": 2201, "tid": 2350,
                           "ts": ts + 5, "dur": 60.0, "args": args})
            if backend == "nccl":
                events.append({"ph": "X", "cat": "gpu_user_annotation", "name": "nccl:%s" % name, "pid": 0, "tid": 7,
                               "ts": ts + 90, "dur": 250.0, "args": {"External id": ext}})
                events.append({"ph": "X", "cat": "kernel", "name": kernel, "pid": 0, "tid": 7, "ts": ts + 90, "dur": 250.0,
                               "args": {"queued": 0, "device": rank, "context": 1, "stream": 7, "correlation": 5000 + ext,
                                        "registers per thread": 96, "shared memory": 0, "blocks per SM": 0.5,
                                        "grid": [16, 1, 1], "block": [512, 1, 1], "external id": ext}})
        ts += 6000.0
    doc = {"schemaVersion": 1,
           "deviceProperties": [{"id": rank, "name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 85197848576,
                                 "computeMajor": 8, "computeMinor": 0, "maxThreadsPerBlock": 1024,
                                 "maxThreadsPerMultiprocessor": 2048, "regsPerBlock": 65536, "regsPerMultiprocessor": 65536,
                                 "warpSize": 32, "sharedMemPerBlock": 49152, "sharedMemPerMultiprocessor": 167936,
                                 "numSms": 108, "sharedMemPerBlockOptin": 166912}]}
    if distributed:
        doc["distributedInfo"] = {"backend": backend, "rank": rank, "world_size": world_size}
    doc["record_shapes"] = record_shapes
    doc["with_stack"] = 0
    doc["profile_memory"] = 0
    doc["traceEvents"] = events
    doc["traceName"] = "rank%d.pt.trace.json" % rank
    return doc


def torch_traces():
    for rank in range(2):
        path = os.path.join(HERE, "torch/pt2.0-annotations/rank%d.pt.trace.json" % rank)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(older_trace(2, rank, 1, True, "user_annotation"), f, indent=1)
    cases = {"pt1.13-cpu-op/worker0.pt.trace.json": older_trace(2, 0, 1, True, "cpu_op"),
             "no-shapes/worker0.pt.trace.json": older_trace(2, 0, 0, False, "user_annotation"),
             "shapes-but-bare/worker0.pt.trace.json": older_trace(2, 0, 1, False, "user_annotation"),
             "no-world-size/worker0.pt.trace.json": older_trace(2, 0, 1, True, "user_annotation", distributed=False),
             "gloo/worker0.pt.trace.json": older_trace(2, 0, 1, True, "cpu_op", backend="gloo")}
    quiet = older_trace(2, 0, 1, True, "user_annotation")
    quiet["traceEvents"] = [e for e in quiet["traceEvents"] if "nccl" not in e["name"] and e["name"] != "record_param_comms"]
    cases["no-comm/worker0.pt.trace.json"] = quiet
    for name, doc in cases.items():
        path = os.path.join(HERE, "torch", name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    nccl_tests_text()
    nccl_tests_json()
    nccl_logs()
    torch_traces()
