#pragma once
// A run measured in the MPI ranks themselves, with no worker processes: every mpi-engine
// run (host buffers), and a search on the nccl engine whose candidates set no NCCL
// variable (call modes only), where one communicator serves every candidate.
namespace ncclsweep {

struct LaunchState;

// Collective. Returns kExitOk (also when a signal stopped it: state.stopped says so),
// or kExitUsage when the engine refuses a planned call or the run may not start.
int run_in_process(LaunchState& state);

}  // namespace ncclsweep
