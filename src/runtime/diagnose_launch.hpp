#pragma once
// One `ncclsweep diagnose` on this rank (docs/diagnose.md): the budget planned and
// announced, then in one launch the preflight facts, the platform probes, locate's
// tournament (two hosts or more) and the workload's calls, compared with the reference
// through the acceptance gate; rank 0 attributes the gap to the layers and writes
// diagnose.json. The command parses flags into a DiagnoseRequest and prints the outcome.
#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "compare/acceptance_gate.hpp"
#include "compare/diagnosis.hpp"
#include "core/launch_outcome.hpp"
#include "core/report_format.hpp"
#include "locate/locate_results.hpp"
#include "transport/mpi_session.hpp"
#include "runtime/run_plan.hpp"

namespace ncclsweep {

struct DiagnoseRequest {
  RunFlags run;             // the workload's measurement (engine, sizes, collectives, repeats ...)
  std::optional<SizesSource> workload;  // --workload: its calls as the sizes (none: the flags' sizes)
  std::string sweep_file;   // --sweep: settings searched at the same calls ("" : none)
  std::string reference;    // --reference: a run or diagnose directory, nccl-tests text or JSON
  double target = kDefaultTarget;
  double budget_s = 600;
  std::string fault;        // --inject-fault: cpu-hog goes to the probes, slow= to locate and the calls
  std::string output_dir;   // empty: RESULTS_ROOT/diagnose/<UTC start>
  std::string results_root = "results";
  ReportFormat format = ReportFormat::table;
  bool plan_only = false;   // --plan: print the budget and what each phase measures, measure nothing
  std::vector<std::string> command_line;
};

// Rank 0's result is the plan (plan_only) or the diagnosis. `status` is the same on every
// rank: the acceptance gate's (0 PASS, 1 FAIL, 5 UNRESOLVED), 2 for bad input, 3 for a
// runtime failure; with plan_only 0 (or 2).
using DiagnoseOutcome = LaunchOutcome<std::variant<DiagnosePlan, Diagnosis>>;

// What rank 0 learns while the phases run, for the command to show as it comes: the
// budget (a Diagnosis with its phases planned and nothing measured yet) before the first
// phase, and locate's verdicts when the hosts and links phase has them; and where the
// phases' own tables and lines go (not stdout, which the diagnosis document must have
// to itself: nullptr shows none).
struct DiagnoseProgress {
  std::ostream* phases = nullptr;
  std::function<void(const Diagnosis& planned)> budget_planned;
  std::function<void(const locate::LocateSummary&)> locate_judged;
};

DiagnoseOutcome run_diagnose_launch(MpiSession& session, const DiagnoseRequest& request, char** envp,
                                    const DiagnoseProgress& progress = {});

// The file of a diagnose directory, and the run inside it a later diagnose compares with.
inline constexpr const char* kDiagnoseFile = "diagnose.json";
inline constexpr const char* kDiagnoseRunFolder = "run";
inline constexpr const char* kDiagnoseSettingsFolder = "settings";  // the --sweep search's run
inline constexpr const char* kDiagnoseProbeFolder = "probe";  // the platform figures a later diagnose judges against

}  // namespace ncclsweep
