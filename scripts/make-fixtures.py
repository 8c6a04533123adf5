#!/usr/bin/env python3
"""Makes real importer fixtures on a machine with 2 GPUs and PyTorch.

    python3 scripts/make-fixtures.py OUTDIR

runs two small jobs with torchrun (2 processes, one GPU each):
  fsdp2/  2 nn.TransformerEncoderLayer(d 1024, ff 4096) under FSDP2 fully_shard,
          bf16 parameters, fp32 gradient reduction (docs/workloads.md's FSDP2 example)
  ddp/    a 2-layer MLP under DistributedDataParallel
and writes into OUTDIR/<job>/:
  nccl.<host>.<pid>.log   NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=COLL, one file per rank
  trace.rank<R>.json.gz   torch.profiler (Kineto) chrome trace of every step
  manifest.json           steps run, steps profiled, what ncclsweep sizes should be given
NCCL_NVLS_ENABLE=0 is forced in every process (NVLink multicast must stay off there).
Then, for example:
  ncclsweep sizes --from-nccl-log 'OUTDIR/fsdp2/nccl.*.log' --iterations <steps from manifest>
  ncclsweep sizes --from-torch-trace 'OUTDIR/fsdp2/trace.rank*.json.gz' --iterations <the same>
tests/data/real/ holds the output of one run (logs of both ranks, rank 0's trace).
"""
import json
import os
import subprocess
import sys

STEPS = 4                 # training steps each job runs
# Every step is traced (no profiler schedule: a schedule without warm-up keeps only the last
# step), so the trace and the NCCL log cover the same steps; DDP's first step differs from
# the rest (it rebuilds its gradient buckets afterwards).
PROFILE = "no schedule: all steps"
JOBS = ("fsdp2", "ddp")


def launch(out_dir):
    env = dict(os.environ)
    env["NCCL_NVLS_ENABLE"] = "0"
    env["NCCL_DEBUG"] = "INFO"
    env["NCCL_DEBUG_SUBSYS"] = "COLL"
    for job in JOBS:
        job_dir = os.path.join(out_dir, job)
        os.makedirs(job_dir, exist_ok=True)
        env["NCCL_DEBUG_FILE"] = os.path.join(job_dir, "nccl.%h.%p.log")
        command = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
                   os.path.abspath(__file__), "--worker", job, job_dir]
        print("make-fixtures:", " ".join(command), flush=True)
        subprocess.run(command, env=env, check=True)
        manifest = {"job": job, "ranks": 2, "steps_run": STEPS, "profiler_schedule": PROFILE,
                    "nccl_log_iterations": STEPS,
                    "note": "the trace covers every step (without ProfilerStep#N markers: pass --iterations steps_run); the NCCL logs cover the same steps "
                            "plus what runs outside them: model construction (DDP's parameter broadcast "
                            "and shape check) and the final barrier"}
        with open(os.path.join(job_dir, "manifest.json"), "w") as f:
            json.dump(manifest, f, indent=2)
    print("make-fixtures: wrote", out_dir)


def fsdp2_model(torch, device):
    try:
        from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard  # torch >= 2.6
    except ImportError:
        from torch.distributed._composable.fsdp import MixedPrecisionPolicy, fully_shard
    layers = torch.nn.Sequential(*[torch.nn.TransformerEncoderLayer(1024, 16, 4096, batch_first=True)
                                   for _ in range(2)]).to(device)
    policy = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for layer in layers:
        fully_shard(layer, mp_policy=policy)
    fully_shard(layers, mp_policy=policy)
    return layers, lambda: torch.randn(8, 128, 1024, device=device)


def ddp_model(torch, device):
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(), torch.nn.Linear(4096, 1024)).to(device)
    ddp = torch.nn.parallel.DistributedDataParallel(model, device_ids=[device.index])
    return ddp, lambda: torch.randn(64, 1024, device=device)


def worker(job, job_dir):
    import torch
    import torch.distributed as dist
    assert os.environ.get("NCCL_NVLS_ENABLE") == "0", "NCCL_NVLS_ENABLE must stay 0"
    rank = int(os.environ["RANK"])
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=device)
    model, batch = (fsdp2_model if job == "fsdp2" else ddp_model)(torch, device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    trace = os.path.join(job_dir, f"trace.rank{rank}.json.gz")
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    with torch.profiler.profile(activities=activities, record_shapes=True) as profiler:
        for _ in range(STEPS):
            loss = model(batch()).float().pow(2).mean()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            torch.cuda.synchronize()
            profiler.step()
    profiler.export_chrome_trace(trace)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 2:
        launch(os.path.abspath(sys.argv[1]))
    else:
        sys.exit(__doc__)
