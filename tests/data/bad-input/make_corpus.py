#!/usr/bin/env python3
"""Writes the bad-input corpus (tests/cli/test_bad_input_corpus.sh runs every file
through the CLI and expects exit 2 with a message, never a crash or a hang).

Layout: <kind>/<case>, where the kind says which command reads it:
  sweeps/      ncclsweep plan FILE             (tests/data/bad-sweeps is run too)
  results/     ncclsweep report DIR            (each case is a directory holding run.json)
  nccl-tests/  ncclsweep report FILE
  nccl-logs/   ncclsweep sizes --from-nccl-log FILE
  traces/      ncclsweep sizes --from-torch-trace FILE
Run it from this directory; it rewrites everything it owns.
"""
import gzip
import json
import os
import shutil

BINARY = bytes(range(256)) * 4
INVALID_UTF8 = b"\xff\xfe\xc3\x28 \xa0\xa1 \xf0\x28\x8c\xbc\n"
DEEP = 20000

GOOD_RUN = {
    "schema_version": 1, "name": "x", "status": "complete", "command_line": [], "start_time": "",
    "end_time": "", "versions": {"ncclsweep": "", "git_sha": "", "driver": "", "cuda_runtime": "",
                                 "nccl_header": "", "nccl_library": "", "mpi": ""},
    "settings": {"engine": "mpi", "warmup": 1, "iters": 1, "check": True}, "hosts": [], "ranks": [],
    "notes": [], "points": [], "records": [],
}
RECORD = {"collective": "all_reduce", "dtype": "float32", "op": "sum", "root": -1, "size_bytes": 1024,
          "requested_bytes": 1024, "count": 256, "placement": "in_place", "ranks": 2, "warmup": 1, "iters": 1,
          "time_us": {"min": 1, "avg": 1, "max": 1}, "algbw_gbps": 1, "busbw_gbps": 1, "point": "default"}


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def run_with(**changes):
    run = dict(GOOD_RUN)
    run.update(changes)
    return json.dumps(run, indent=1)


def main():
    for kind in ("sweeps", "results", "nccl-tests", "nccl-logs", "traces"):
        shutil.rmtree(kind, ignore_errors=True)

    # Sweep files (more in tests/data/bad-sweeps).
    write("sweeps/empty.yaml", "")
    write("sweeps/binary.yaml", BINARY)
    write("sweeps/invalid-utf8.yaml", b"name: " + INVALID_UTF8)
    write("sweeps/truncated.yaml", "name: x\nsizes: [1M, 4M\n")
    write("sweeps/huge-number.yaml", "iters: 99999999999999999999999\n")
    write("sweeps/negative-number.yaml", "warmup: -5\n")
    write("sweeps/negative-size.yaml", "sizes: -1M\n")
    write("sweeps/timeout-wrong-type.yaml", "timeout: [1, 2]\n")
    write("sweeps/timeout-zero.yaml", "timeout: 0\n")
    write("sweeps/name-escapes.yaml", "name: ../../../tmp/escaped\n")
    write("sweeps/name-absolute.yaml", "name: /etc/cron.d/x\n")
    write("sweeps/deep-list.yaml", "sizes: " + "[" * 5000 + "]" * 5000 + "\n")

    # Results directories: report DIR reads DIR/run.json.
    write("results/empty/run.json", "")
    write("results/binary/run.json", BINARY)
    write("results/invalid-utf8/run.json", b'{"name": "' + INVALID_UTF8 + b'"}')
    write("results/truncated/run.json", run_with(records=[RECORD])[:200])
    write("results/not-an-object/run.json", "[1, 2, 3]\n")
    write("results/wrong-types/run.json", run_with(records="many"))
    write("results/newer-schema/run.json", run_with(schema_version=99))
    write("results/negative-size/run.json", run_with(records=[dict(RECORD, size_bytes=-1024)]))
    write("results/huge-number/run.json", run_with(records=[dict(RECORD, count=2 ** 70)]).replace(
        str(2 ** 70), "1" + "0" * 400))
    write("results/deep-nesting/run.json", "[" * DEEP + "]" * DEEP)
    write("results/missing-key/run.json", json.dumps({"schema_version": 1}))
    os.makedirs("results/no-run-json", exist_ok=True)
    write("results/no-run-json/records.jsonl", json.dumps(RECORD) + "\n")

    # nccl-tests outputs: report FILE.
    write("nccl-tests/empty.txt", "")
    write("nccl-tests/binary.txt", BINARY)
    write("nccl-tests/invalid-utf8.txt", INVALID_UTF8 * 3)
    header = ("#  Collective test starting: all_reduce_perf\n#\n"
              "#                                                              out-of-place                       in-place\n"
              "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n")
    write("nccl-tests/negative-numbers.txt",
          header + "        -1024          -256     float     sum      -1    -12.3   -0.08   -0.08      0    -12.0   -0.09   -0.09      0\n")
    write("nccl-tests/huge-numbers.txt",
          header + "  " + "9" * 40 + "  " + "9" * 40 + "     float     sum      -1    1e999    1e999   1e999      0    1e999   1e999   1e999      0\n")
    write("nccl-tests/header-only.txt", header)
    write("nccl-tests/json-wrong-types.json", json.dumps({"results": "none", "config": 5}))
    write("nccl-tests/json-deep.json", "{\"a\":" * DEEP + "1" + "}" * DEEP)

    # NCCL logs: sizes --from-nccl-log FILE.
    write("nccl-logs/empty.log", "")
    write("nccl-logs/binary.log", BINARY)
    write("nccl-logs/invalid-utf8.log", INVALID_UTF8 * 3)
    write("nccl-logs/truncated.log", "node1:4100:4100 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x7f")
    write("nccl-logs/huge-count.log",
          "node1:4100:4100 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x1 count "
          + "9" * 40 + " datatype 7 op 0 root 0 comm 0x1 [nranks=2] stream 0x1\n")
    write("nccl-logs/negative-count.log",
          "node1:4100:4100 [0] NCCL INFO AllReduce: opCount 0 sendbuff 0x1 recvbuff 0x1 count -5"
          " datatype 7 op 0 root 0 comm 0x1 [nranks=2] stream 0x1\n")

    # Torch traces: sizes --from-torch-trace FILE.
    write("traces/empty.json", "")
    write("traces/binary.json", BINARY)
    write("traces/invalid-utf8.json", b'{"traceEvents": [{"name": "' + INVALID_UTF8 + b'"}]}')
    write("traces/truncated.json", '{"traceEvents": [{"name": "record_param_comms", "args": {"In msg nelems": 4')
    write("traces/wrong-types.json", json.dumps({"traceEvents": {"name": 5}}))
    write("traces/events-wrong-types.json", json.dumps({"traceEvents": [
        {"name": "record_param_comms", "ph": "X", "ts": "soon", "dur": [], "args": {"In msg nelems": "many",
         "Collective name": 7, "dtype": None}}]}))
    write("traces/deep-nesting.json", "[" * DEEP + "]" * DEEP)
    write("traces/not-gzip.json.gz", b"\x1f\x8b\x08\x00garbage-after-the-gzip-magic")
    write("traces/truncated.json.gz", gzip.compress(b'{"traceEvents": [' * 1000)[:40])


if __name__ == "__main__":
    main()
