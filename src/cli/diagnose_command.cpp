// `ncclsweep diagnose`: launched like run (mpirun or srun, one rank per GPU); compares
// this cluster with a reference layer by layer (docs/diagnose.md). This file parses flags
// into a DiagnoseRequest, runtime/diagnose_launch.cpp runs the launch, and rank 0 prints
// its outcome here (report/diagnosis_report).
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>

#include "cli/command.hpp"
#include "cli/data_dir.hpp"
#include "report/diagnosis_report.hpp"
#include "runtime/diagnose_launch.hpp"
#include "transport/mpi_session.hpp"
#include "soak/duration.hpp"

namespace ncclsweep {
namespace {

struct DiagnoseArgs {
  DiagnoseRequest request;
  std::string workload;  // --workload FILE
  std::string budget = "10m";
  std::string sweep;     // --sweep FILE
};

int diagnose_from_args(const DiagnoseArgs& args, CommandContext& context) {
  DiagnoseRequest request = args.request;
  request.budget_s = soak::parse_duration(args.budget, "--budget");
  request.sweep_file = args.sweep;
  if (!args.workload.empty()) {
    // The workload's calls are the sizes: flags that choose others would be dropped.
    const auto& m = args.request.run.measurements;
    if (m.collectives || m.sizes) {
      const std::string flag = m.collectives ? "--collectives" : "--sizes";
      throw UsageError("--workload and " + flag + " cannot be given together: the workload's calls are the sizes",
                       "give --workload alone, or --collectives and --sizes without --workload");
    }
    // The workload's calls as the sizes, each on its own group, weighed per iteration.
    request.run.sweep_file = "(diagnose --workload " + args.workload + ")";
    SizesSource& sizes = request.workload.emplace();
    sizes.kind = SizesSourceKind::workload;
    sizes.path = std::filesystem::absolute(args.workload).string();
    sizes.where = SourcePosition{request.run.sweep_file};
  }
  request.run.models_dir = models_directory(request.run.models_dir);
  MpiSession session(&context.argc, &context.argv);
  request.command_line = {context.argv, context.argv + context.argc};
  // The budget and locate's findings go with the phases' progress, to stderr, as soon as
  // they are known.
  DiagnoseProgress progress;
  progress.phases = &std::cerr;
  progress.budget_planned = [](const Diagnosis& planned) {
    std::cerr << "# ncclsweep diagnose: budget " << budget_text(planned) << std::endl;
  };
  progress.locate_judged = [](const locate::LocateSummary& summary) {
    locate::print_locate_summary(summary, TableOrJson::table, std::cerr);
  };
  const DiagnoseOutcome outcome = run_diagnose_launch(session, request, context.envp, progress);
  print_launch_error(outcome);
  if (const auto* plan = outcome.result ? std::get_if<DiagnosePlan>(&*outcome.result) : nullptr) {
    print_diagnose_plan(*plan, request.format, std::cout);
  }
  if (const auto* diagnosis = outcome.result ? std::get_if<Diagnosis>(&*outcome.result) : nullptr) {
    print_diagnosis(*diagnosis, request.format, std::cout);
  }
  return outcome.status;
}

}  // namespace

void add_diagnose_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<DiagnoseArgs>();
  DiagnoseRequest& r = args->request;
  CLI::App* cmd = add_command(app, chosen, args, "diagnose",
                              "Compare this cluster with a reference layer by layer, within a time budget (launch like run)",
                              diagnose_from_args);
  cmd->add_option("--reference", r.reference,
                  "A run or diagnose directory, or nccl-tests output (text or -J JSON), of the reference cluster")
      ->required();
  cmd->add_option("--workload", args->workload,
                  "Workload file (configs/workloads/*.yaml): its calls, weighed by time per iteration; without it, "
                  "--sizes and --collectives");
  cmd->add_option("--target", r.target, "PASS at or above this share of the reference, with the run's noise")
      ->check(finite_range(0.01, 10))
      ->capture_default_str();
  cmd->add_option("--budget", args->budget, "Time for the whole diagnose (90s, 10m, 1h); refused when its phases cannot fit")
      ->capture_default_str();
  cmd->add_option("--sweep", args->sweep, "Sweep file whose NCCL settings are searched at the same calls, the job's own as baseline (docs/diagnose.md)");
  cmd->add_option("--collectives,-c", r.run.measurements.collectives, "Comma list, as run's (without --workload)");
  cmd->add_option("--sizes,-s", r.run.measurements.sizes, "Sizes, as run's (without --workload)");
  cmd->add_option("--dtype,--dtypes,-d", r.run.measurements.dtypes, "Comma list of dtypes, as run's");
  cmd->add_option("--warmup,-w", r.run.measurements.warmup, "Untimed iterations per size")->check(finite_range(0, 1000000));
  cmd->add_option("--iters,-n", r.run.measurements.iters,
                  "Timed iterations per size (default: until the noise target or the budget's cap per size)")
      ->check(finite_range(1, 1000000));
  cmd->add_option("--repeats", r.run.measurements.repeats, "Measure each call this many times (the gate names how many settle it)")
      ->check(finite_range(1, 10000));
  add_choice(*cmd, "--engine", r.run.measurements.engine, kEngineNames, "nccl (GPU; the default when built) or mpi (host buffers)");
  cmd->add_option("--groups", r.run.groups, "Sub-communicators, as run's --groups");
  cmd->add_option("--models-dir", r.run.models_dir, "Model catalog for --workload (default configs/models)");
  add_choice(*cmd, "--format", r.format, kReportFormatNames,
             {ReportFormat::table, ReportFormat::md, ReportFormat::json, ReportFormat::svg},
             "table, md (a ticket), json (docs/diagnose.md) or svg (the gap by layer) on stdout; progress on stderr");
  cmd->add_option("--output,-o", r.output_dir, "Diagnose directory (default results/diagnose/<UTC time>/)");
  cmd->add_option("--results-root", r.results_root, "Where the default directory goes")->capture_default_str();
  cmd->add_flag("--plan", r.plan_only,
                "Print the budget by phase and what each phase will measure, on this launch's ranks and hosts; measure nothing");
  cmd->add_option("--inject-fault", r.fault,
                  "Testing aid: RANK:cpu-hog (during the probes) or RANK:slow=FACTOR (locate and the calls), as run's");
}

}  // namespace ncclsweep
