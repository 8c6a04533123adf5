#!/usr/bin/env python3
"""Writes the hand-made importer fixtures in this directory (see README.md).

They imitate a 2-rank job (an FSDP model of 4 blocks plus a DDP all-reduce) for
2 iterations, in the formats NCCL's COLL log, the torch profiler and NCCL Inspector
write (docs/workloads.md). They are
NOT from a real job; scripts/make-fixtures.py makes real ones on a GPU machine.
"""
import gzip
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
AG_COUNT = 6298112      # per rank, bfloat16 (datatype 9)
RS_COUNT = 6298112      # per rank, float32 (datatype 7), op avg (4)
AR_COUNT = 1048576      # float32, op sum
ITERATIONS = 2
BLOCKS = 4


def calls_of_one_iteration():
    """(nccl name, count, datatype, op) in the order one rank issues them."""
    calls = [("AllGather", AG_COUNT, 9, 0)] * BLOCKS          # forward
    calls += [("AllGather", AG_COUNT, 9, 0)] * (BLOCKS - 1)   # backward (last block not resharded)
    calls += [("ReduceScatter", RS_COUNT, 7, 4)] * BLOCKS
    calls += [("AllReduce", AR_COUNT, 7, 0)]
    calls += [("Send", 4096, 9, 0), ("Recv", 4096, 9, 0)]
    return calls


def nccl_logs():
    os.makedirs(os.path.join(HERE, "nccl_log"), exist_ok=True)
    for rank in range(2):
        pid = 4100 + rank
        prefix = f"gpu-node-01:{pid}:{pid + 7} [{rank}] NCCL INFO "
        lines = [prefix + "Bootstrap: Using eth0:10.0.0.1<0>",
                 prefix + "NCCL version 2.28.3+cuda13.0",
                 prefix + f"comm 0x55d1c0a0 rank {rank} nRanks 2 nNodes 1 localRanks 2 localRank {rank} MNNVL 0"]
        op_count = 0
        for _ in range(ITERATIONS):
            for name, count, dtype, op in calls_of_one_iteration():
                root = (1 - rank) if name in ("Send", "Recv") else 0
                lines.append(prefix + f"{name}: opCount {op_count:x} sendbuff 0x7f3a40000000 recvbuff 0x7f3a48000000 "
                             f"count {count} datatype {dtype} op {op} root {root} comm 0x55d1c0a0 [nranks=2] "
                             f"stream 0x55d1c3f0")
                op_count += 1
        with open(os.path.join(HERE, "nccl_log", f"nccl.gpu-node-01.{pid}.log"), "w") as f:
            f.write("\n".join(lines) + "\n")
    with open(os.path.join(HERE, "nccl_log_without_coll.log"), "w") as f:
        f.write("gpu-node-01:4100:4107 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>\n"
                "gpu-node-01:4100:4107 [0] NCCL INFO NCCL_IB_QPS_PER_CONNECTION set by environment to 4.\n")


TORCH = {"AllGather": ("_allgather_base", "BFloat16", AG_COUNT, 2 * AG_COUNT),
         "ReduceScatter": ("_reduce_scatter_base", "Float", 2 * RS_COUNT, RS_COUNT),
         "AllReduce": ("allreduce", "Float", AR_COUNT, AR_COUNT)}


def comm_args(name):
    torch_name, dtype, n_in, n_out = TORCH[name]
    return {"Collective name": torch_name, "In msg nelems": n_in, "Out msg nelems": n_out, "Group size": 2,
            "dtype": dtype, "In split size": "[]", "Out split size": "[]", "Global rank start": 0,
            "Global rank stride": 1, "Process Group Name": "0", "Process Group Description": "default_pg",
            "Process Group Ranks": "[0, 1]"}


def torch_trace():
    events = []
    ts = 1000
    for step in range(ITERATIONS):
        events.append({"ph": "X", "cat": "user_annotation", "name": f"ProfilerStep#{step + 3}", "pid": 7, "tid": 7,
                       "ts": ts, "dur": 90000, "args": {"External id": 1}})
        for name, _, _, _ in calls_of_one_iteration():
            if name not in TORCH:
                continue
            ts += 100
            events.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7, "ts": ts,
                           "dur": 20, "args": dict(comm_args(name), **{"Record function id": 0, "Ev Idx": ts})})
            kernel = {"AllGather": "ncclDevKernel_AllGather_RING_LL", "ReduceScatter": "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL",
                      "AllReduce": "ncclDevKernel_AllReduce_Sum_f32_RING_LL"}[name]
            events.append({"ph": "X", "cat": "kernel", "name": kernel + "(ncclDevKernelArgsStorage<4096ul>)", "pid": 0,
                           "tid": 23, "ts": ts + 30, "dur": 400,
                           "args": dict(comm_args(name), **{"device": 0, "stream": 23, "correlation": ts})})
        ts += 100000
    events.append({"ph": "X", "cat": "cpu_op", "name": "record_param_comms", "pid": 7, "tid": 7, "ts": ts, "dur": 5,
                   "args": {"Collective name": "barrier", "In msg nelems": 0, "Out msg nelems": 0, "Group size": 2,
                            "dtype": "Float"}})
    trace = {"schemaVersion": 1, "deviceProperties": [], "distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 2},
             "traceEvents": events, "traceName": "hand-written.json"}
    text = json.dumps(trace, indent=1)
    with open(os.path.join(HERE, "torch_trace.json"), "w") as f:
        f.write(text)
    with gzip.open(os.path.join(HERE, "torch_trace.json.gz"), "wt") as f:
        f.write(text)
    with open(os.path.join(HERE, "not_a_trace.json"), "w") as f:
        f.write('{"results": [1, 2, 3]}\n')


def inspector():
    os.makedirs(os.path.join(HERE, "inspector"), exist_ok=True)
    element = {9: 2, 7: 4}
    for rank in range(2):
        with open(os.path.join(HERE, "inspector", f"nccl-inspector-rank{rank}.log"), "w") as f:
            sn = 0
            for _ in range(ITERATIONS):
                for name, count, dtype, _ in calls_of_one_iteration():
                    if name in ("Send", "Recv"):
                        continue
                    sn += 1
                    record = {"header": {"id": "0x7f8c496ae9f661", "rank": rank, "n_ranks": 2, "nnodes": 1},
                              "metadata": {"inspector_output_format_version": "v4.0", "git_rev": "",
                                           "rec_mechanism": "profiler_plugin", "dump_timestamp_us": 1748030377748202 + sn,
                                           "hostname": "gpu-node-01", "pid": 4100 + rank},
                              "coll_perf": {"coll": name, "coll_sn": sn, "coll_msg_size_bytes": count * element[dtype],
                                            "coll_exec_time_us": 410, "coll_algobw_gbs": 100.0, "coll_busbw_gbs": 50.0}}
                    f.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    nccl_logs()
    torch_trace()
    inspector()
