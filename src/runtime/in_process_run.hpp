#pragma once
// The mpi engine's run: host buffers, measured in this process on every rank.
namespace ncclsweep {

struct LaunchState;

// Collective. Returns kExitOk (also when a signal stopped it: state.stopped says so),
// or kExitUsage when the engine refuses a planned call or the run may not start.
int run_in_process(LaunchState& state);

}  // namespace ncclsweep
