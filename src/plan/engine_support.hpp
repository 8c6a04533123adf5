#pragma once
// Whether an engine can run every call a sweep asks for, decided before launch so `plan`
// refuses what `run` would, at the sweep file's line (docs/sweep-files.md, "Engines").
#include "core/errors.hpp"
#include "core/run_options.hpp"
#include "spec/run_spec.hpp"
#include "spec/sweep.hpp"

namespace ncclsweep {

// Where the keys a refusal names were given: the sweep file's lines, or the flags.
struct EngineCheckPlaces {
  SourcePosition dtypes{"--dtype", 0, 0};
  SourcePosition ops{"--op", 0, 0};
  SourcePosition engine{"--engine", 0, 0};
};
// The file's keys where it has them; flags given on the command line win (`given_*`).
EngineCheckPlaces places_of(const Sweep& sweep, bool given_dtype, bool given_op, bool given_engine);

// Throws UsageError at the dtypes:, ops: or engine: line for the first collective x dtype x
// op x mode `engine` cannot run (engine/engine.hpp, mpi_engine_unsupported_reason).
void check_engine_support(const RunSpec& spec, EngineKind engine, const EngineCheckPlaces& places);

}  // namespace ncclsweep
