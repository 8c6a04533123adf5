#pragma once
// Whether an engine can run every call a sweep asks for, decided before launch so `plan`
// refuses what `run` would, at the sweep file's line (docs/sweep-files.md, "Engines").
#include "core/errors.hpp"
#include "core/run_options.hpp"
#include "plan/measurement_plan.hpp"
#include "spec/run_spec.hpp"
#include "spec/sweep.hpp"

namespace ncclsweep {

// Where the keys a refusal names were given: the sweep file's lines, or the flags.
struct EngineCheckPlaces {
  SourcePosition dtypes{"--dtype", 0, 0};
  SourcePosition ops{"--op", 0, 0};
  SourcePosition engine{"--engine", 0, 0};
  SourcePosition sizes{"--sizes", 0, 0};
  SourcePosition root{"--root", 0, 0};
  SourcePosition footprint{"--buffer-footprint", 0, 0};
};
// The file's keys where it has them; flags given on the command line win (`given_*`).
EngineCheckPlaces places_of(const Sweep& sweep, bool given_dtype, bool given_op, bool given_engine, bool given_root = false,
                            bool given_footprint = false);

// Throws UsageError at the dtypes:, ops: or engine: line for the first collective x dtype x
// op x mode `engine` cannot run (engine/engine.hpp, mpi_engine_unsupported_reason).
void check_engine_support(const RunSpec& spec, EngineKind engine, const EngineCheckPlaces& places);

// The same for sizes from a workload, logs or listed calls (`calls`, each in the spec's
// modes): at the line of the first of `listed` (a sweep's sizes: {calls: [...]}) that is
// the refused call, else at the sizes: line; the fix names --dtype, which replaces the
// calls' dtype.
void check_engine_support(const std::vector<SizedCall>& calls, const std::vector<ListedCall>& listed, EngineKind engine,
                          const EngineCheckPlaces& places);

// What run checks: a calls block's calls (`listed`, with `spec.calls` planned from them) at
// their own lines; otherwise the spec as a grid's, as a workload's or a log's calls are.
void check_engine_runs(const RunSpec& spec, const std::vector<ListedCall>& listed, EngineKind engine,
                       const EngineCheckPlaces& places);

// The most bytes one rank's buffers span for any call of the plan on `ranks` ranks: send
// and receive, each as large as the call's footprint asks (core/buffer_footprint.hpp).
Bytes largest_rank_buffers(const MeasurementPlan& plan, int ranks);

// Throws UsageError at the sizes: line (the buffer_footprint: line where a fixed footprint
// makes the buffers larger than the call) when a rank's buffers cannot fit in `memory_bytes`
// (`memory` says whose: "this host's 15.6 GiB for each of its 4 ranks"), so a size no rank
// can allocate is refused before launch instead of failing inside the engine.
void check_rank_memory(const MeasurementPlan& plan, int ranks, Bytes memory_bytes, const std::string& memory,
                       const EngineCheckPlaces& places);

}  // namespace ncclsweep
