#pragma once
// The moment a run starts, once the engine (or every worker) has its device: the gate
// all ranks pass together before anything is timed.
namespace ncclsweep {

struct LaunchState;
struct DeviceDescription;

// Collective. Gathers every rank's description; refuses two ranks on one GPU (unless
// --allow-shared-gpu) and a resume whose sweep or rank layout changed (unless --force);
// runs the cheap preflight checks; on rank 0 shows their findings, starts the run
// document and begins the sinks. True when the run goes on; false once rank 0 said why.
bool begin_run(LaunchState& state, const DeviceDescription& device);

}  // namespace ncclsweep
