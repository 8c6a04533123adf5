#pragma once
// The nccl engine's run: one worker process per rank and isolation group, group after
// group. A failed point costs only itself (the group's workers restart for the points
// after it); workers that never come up end the run, since later groups would fail alike.
namespace ncclsweep {

struct LaunchState;

// Collective. Returns the worst exit status the workers asked for (kExitOk when all
// went well; kExitRuntime at least when no worker ever came up), or kExitUsage when
// the run may not start.
int run_in_workers(LaunchState& state);

}  // namespace ncclsweep
