#pragma once
// One `ncclsweep locate` on this rank (docs/locate.md): the checks every rank agrees on,
// the schedule on one connected engine, and on rank 0 the verdicts, the results directory
// and the summary its command prints.
#include <optional>
#include <string>
#include <vector>

#include "core/launch_outcome.hpp"
#include "core/table_or_json.hpp"
#include "locate/locate_plan.hpp"
#include "locate/locate_results.hpp"
#include "runtime/launch.hpp"

namespace ncclsweep {

struct LocateRequest {
  locate::LocateOptions options;
  EngineKind engine = EngineKind::mpi;
  std::string fault;          // --inject-fault text; empty: none
  std::string reference_dir;  // --reference; empty: the median of this launch
  std::string output_dir;     // empty: RESULTS_ROOT/locate/<UTC start>
  std::string results_root = "results";
  std::string svg_path;       // --svg, checked writable before measuring (the command writes it); empty: none
  TableOrJson format = TableOrJson::table;  // json: the verdicts as one JSON document on stdout, progress on stderr
  std::vector<std::string> command_line;
};

// `status` is the same on every rank (1 when anything is slow; README: exit codes).
using LocateOutcome = LaunchOutcome<locate::LocateSummary>;

// services.make_engine builds the engine; services.received_signal is not consulted.
LocateOutcome run_locate_launch(RankGroup& ranks, const LocateRequest& request, const LaunchServices& services);
// The same over MPI with the build's engines.
LocateOutcome run_locate_launch(MpiSession& session, const LocateRequest& request);

}  // namespace ncclsweep
