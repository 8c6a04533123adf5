#pragma once
// A sweep's `sizes:` from a workload (or a real job's files) and its `groups:` -> the
// calls a run measures, each on its communicator, and the weights that turn measured
// times into collective time per training iteration (results/iteration_times.hpp uses them).
#include <optional>
#include <string>
#include <vector>

#include "spec/run_spec.hpp"
#include "results/record.hpp"
#include "spec/sweep.hpp"
#include "workload/comm_use.hpp"
#include "workload/layout.hpp"

namespace ncclsweep {

struct SizesInput {
  CommProfile profile;
  std::optional<Layout> layout;  // workloads only: imported files do not say
};

// A sweep's listed calls (sizes: {calls: [...]}) in the workload's form; `source_name`
// names them in reports.
CommProfile listed_calls_profile(const SizesSource& source, const std::string& source_name);

// Loads the source. A relative path is tried as written, then against the sweep file's
// folder. Errors keep their own file and name the sweep file's line too.
SizesInput load_sizes_source(const SizesSource& source, const std::string& sweep_file, const std::string& models_dir);

struct WorkloadCalls {
  std::vector<SizedCall> calls;  // distinct, in profile order
  WorkloadWeights weights;
  std::vector<std::string> notes;  // groups that did not fit, calls outside NCCL
};

// The calls to measure on `ranks` ranks (placed `ranks_per_node` per node). Without a
// groups request (or with `workload`) each call runs on its own group kind when the
// layout's rank count is this run's, else on the world communicator (a note says so).
// Throws UsageError (at the request's position) for groups that cannot be made.
WorkloadCalls plan_workload_calls(const SizesInput& input, const std::optional<CommSplitRequest>& groups,
                                  const std::vector<const DataType*>& fallback_dtypes, int ranks, int ranks_per_node);

// What `plan` shows of a sweep's workload sizes, before any launch: the calls on `ranks`
// ranks, or (0) on the rank count the workload itself describes (its layout's world; a
// listed profile's `ranks`; else its largest communicator), plain groups planned as one node.
struct PlannedWorkload {
  int ranks = 0;
  WorkloadCalls calls;
};

// nullopt without workload sizes. Throws UsageError for groups that need a workload's
// layout when the sweep has none, and for what plan_workload_calls refuses.
std::optional<PlannedWorkload> plan_workload_preview(const Sweep& sweep, const std::optional<CommSplitRequest>& groups,
                                                     const std::string& sweep_file, const std::string& models_dir,
                                                     int ranks = 0);

// The group for a grid (no workload sizes): plain kinds only. Throws UsageError for a
// workload kind (dp, tp, ...), which needs a workload's layout.
CommSplit grid_split(const std::optional<CommSplitRequest>& groups, int ranks, int ranks_per_node);

}  // namespace ncclsweep
