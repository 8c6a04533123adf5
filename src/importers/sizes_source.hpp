#pragma once
// One `ncclsweep sizes`: the collective sizes a training job sends, from exactly one
// source: a workload (a file and/or a model with layout fields) derived, or a real job's
// NCCL logs, torch traces or Inspector output imported; printed as a table, a sizes:
// block for a sweep file, or JSON.
#include <iosfwd>
#include <string>

#include "workload/comm_use.hpp"
#include "workload/sizes_output.hpp"
#include "workload/workload.hpp"

namespace ncclsweep {

struct SizesRequest {
  std::string workload;         // --workload FILE
  WorkloadOverrides overrides;  // --model, --tp, ...: fields over the file's
  std::string models_dir;       // where a model is found (resolved by the CLI)
  std::string nccl_log, torch_trace, inspector;  // quoted globs
  int iterations = 0;           // the iterations imported files cover; 0: count them as one
  SizesFormat format = SizesFormat::table;
};

// The calls of the one source. Throws UsageError when none or several are given.
CommProfile sizes_profile(const SizesRequest& request);

// Prints the calls to `out`; returns kExitOk.
int run_sizes_command(const SizesRequest& request, std::ostream& out);

}  // namespace ncclsweep
