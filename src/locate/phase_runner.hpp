#pragma once
// Runs locate's steps on one connected engine: per step one split of the world (every
// group at once), then each test's warm-up and timed repeats on every group together;
// with --passes N the whole schedule N times, so a test's repeats are spread over the
// launch and a slow spell of the machine touches every group alike.
// Engine-neutral: the mpi engine splits with MPI_Comm_split, the nccl engine with
// ncclCommSplit, both through Engine::split.
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/coordinator.hpp"
#include "engine/engine.hpp"
#include "locate/locate_fault.hpp"
#include "locate/locate_plan.hpp"
#include "locate/locate_record.hpp"

namespace ncclsweep::locate {

struct StepTime {
  LocatePhase phase = LocatePhase::host;
  int round = 0;
  int pass = 1;
  double seconds = 0;        // wall time of the split and all its tests, on rank 0
  double split_seconds = 0;  // of which the split (and the slow-down aid's setting), on rank 0
};

struct LocateRun {
  std::vector<MeasurementRecord> measurements;  // measured groups only
  std::vector<StepTime> steps;
};

// A group its warm-up showed far slower than the step's typical group, timing fewer calls.
struct SlowWarmUp {
  std::vector<int> hosts;  // the group's hosts (host indices)
  std::string test;        // "all_gather 64 MiB"
  double call_seconds = 0, typical_seconds = 0;
  int iters = 0;  // timed calls per repeat it gets
};

// Called on every rank after a step's warm-up when a group is far slower (index as below):
// the step may take long, and this says why before it ends.
using SlowWarmUps = std::function<void(const Step& step, const std::vector<SlowWarmUp>& slow, int index, int total)>;

// Called on every rank after each step (index from 0 of `total`, over all passes), with
// the measurements the step added (rank 0 records them as they come).
using StepDone =
    std::function<void(const StepTime& time, std::span<const MeasurementRecord> measured, int index, int total)>;

// Collective: every rank calls it with the same layout and options and gets the same
// result. `fault` slows this rank's calls where it applies (a testing aid).
LocateRun run_locate(Engine& engine, Coordinator& ranks, const HostLayout& layout, const LocateOptions& options,
                     const SlowFault& fault, const StepDone& on_step, const SlowWarmUps& on_slow = {});

}  // namespace ncclsweep::locate
