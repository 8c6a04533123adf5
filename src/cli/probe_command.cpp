// `ncclsweep probe`: the platform signals behind slow clusters, measured on every rank
// inside the job's own allocation, container and binding (docs/probe.md).
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/command.hpp"
#include "core/run_options.hpp"
#include "core/errors.hpp"
#include "probe/cpu_probes.hpp"
#include "probe/probe_run.hpp"
#include "measure/fault_injection.hpp"
#include "transport/mpi_session.hpp"
#include "report/probe_results.hpp"
#include "runtime/probe_launch.hpp"

namespace ncclsweep {
namespace {

struct ProbeArgs {
  std::string output;
  std::string results_root = "results";
  bool quick = false;
  double stall_seconds = -1;
  EngineKind engine = EngineKind::nccl;
  std::string fault;
};

probe::ProbeOptions probe_options(const ProbeArgs& args) {
  probe::ProbeOptions options = args.quick ? probe::ProbeOptions::quick() : probe::ProbeOptions{};
  if (args.stall_seconds >= 0) options.stall_seconds = args.stall_seconds;
  options.gpu = args.engine != EngineKind::mpi;
  return options;
}

int run_probe(const ProbeArgs& args, CommandContext& context) {
  const probe::ProbeOptions options = probe_options(args);
  FaultInjection fault;
  if (!args.fault.empty()) {
    fault = parse_fault_injection(args.fault);
    if (fault.action != FaultAction::cpu_hog) {
      throw UsageError("--inject-fault " + args.fault + ": probe injects only cpu-hog", "write RANK:cpu-hog, e.g. 1:cpu-hog");
    }
  }
  MpiSession session(&context.argc, &context.argv);
  const ProbeOutcome outcome = run_probe_launch(session, options, fault, {context.argv, context.argv + context.argc},
                                                args.output, args.results_root);
  print_launch_error(outcome);
  if (outcome.result) print_probe_results(outcome.result->document, outcome.result->directory, std::cout);
  return outcome.status;
}

}  // namespace

void add_probe_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<ProbeArgs>();
  CLI::App* probe = add_command(app, chosen, args, "probe",
                                "Measure busy-core clock, stalls, map/unmap, NUMA and GPU signals on every rank (launch "
                                "like run); exit 1 when a host stands out",
                                run_probe);
  probe->add_option("-o,--output", args->output, "Results directory (default: RESULTS_ROOT/probe/<UTC start>)");
  probe->add_option("--results-root", args->results_root, "Where the default results directory goes")
      ->capture_default_str();
  probe->add_flag("--quick", args->quick, "Shorter probes: under 5 s per rank instead of under 30 s");
  probe->add_option("--stall-seconds", args->stall_seconds, "How long the stall watcher runs (default 10, --quick 1)")
      ->check(finite_range(0.1, 3600.0));
  add_choice(*probe, "--engine", args->engine, kEngineNames,
             "nccl (every probe) or mpi (CPU probes only; GPU probes skipped)");
  probe->add_option("--inject-fault", args->fault,
                    "Testing aid: RANK:cpu-hog keeps every core of that rank busy from outside its scheduling group "
                    "(docs/probe.md)");
}

}  // namespace ncclsweep
