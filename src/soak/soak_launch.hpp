#pragma once
// One `ncclsweep soak` on this rank (docs/soak.md): the checks every rank agrees on, the
// results directory (new, or the earlier one of --resume), the windows on one engine,
// and on rank 0 the verdicts, the metrics file and the summary its command prints.
#include <optional>
#include <string>
#include <vector>

#include "core/launch_outcome.hpp"
#include "core/table_or_json.hpp"
#include "runtime/launch.hpp"
#include "soak/soak_results.hpp"
#include "soak/soak_runner.hpp"

namespace ncclsweep::soak {

struct SoakRequest {
  std::optional<SoakOptions> options;  // a new soak's; empty on --resume (run.json holds them)
  std::optional<double> duration_s;    // --resume with --duration: the timeline's new length
  EngineKind engine = EngineKind::mpi;
  std::string fault;                   // --inject-fault text; empty: none
  std::string output_dir;              // empty: RESULTS_ROOT/soak/<UTC start>
  std::string results_root = "results";
  std::string resume_dir;              // --resume DIR
  std::string metrics_file;            // --metrics-file PATH; empty: none
  TableOrJson format = TableOrJson::table;  // json: the verdicts as one JSON document on stdout, the rest on stderr
  std::vector<std::string> command_line;
};

// `status` is the same on every rank: 1 when a verdict names something, 128 + the signal
// after a stop (README: exit codes).
using SoakOutcome = LaunchOutcome<SoakSummary>;

SoakOutcome run_soak_launch(RankGroup& ranks, const SoakRequest& request, const LaunchServices& services);
// The same over MPI with the build's engines and SIGINT/SIGTERM handlers.
SoakOutcome run_soak_launch(MpiSession& session, const SoakRequest& request);

}  // namespace ncclsweep::soak
