// `ncclsweep probe`: the platform signals behind slow clusters, measured on every rank
// inside the job's own allocation, container and binding (docs/probe.md).
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "cli/command.hpp"
#include "cli/probe_launch.hpp"
#include "core/errors.hpp"
#include "core/utc_time.hpp"
#include "probe/cpu_probes.hpp"
#include "probe/probe_run.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/mpi_session.hpp"

namespace ncclsweep {
namespace {

struct ProbeArgs {
  std::string output;
  std::string results_root = "results";
  bool quick = false;
  double stall_seconds = -1;
  std::string engine = "nccl";
  std::string fault;
};

probe::ProbeOptions probe_options(const ProbeArgs& args) {
  probe::ProbeOptions options = args.quick ? probe::ProbeOptions::quick() : probe::ProbeOptions{};
  if (args.stall_seconds >= 0) options.stall_seconds = args.stall_seconds;
  options.gpu = args.engine != "mpi";
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
  const std::string started = compact_utc(std::chrono::system_clock::now());
  const auto document = probe_every_rank(session, options, fault, context.argc, context.argv);
  int status = kExitOk;
  if (document) {
    write_and_print_probe(*document, !args.output.empty() ? args.output : args.results_root + "/probe/" + started);
    if (!document->named_hosts.empty()) status = kExitFindings;
  }
  return session.max_across_ranks(status);
}

}  // namespace

std::optional<probe::ProbeDocument> probe_every_rank(MpiSession& session, const probe::ProbeOptions& options,
                                                     const FaultInjection& fault, int argc, char** argv) {
  const auto start = std::chrono::system_clock::now();
  const auto steady_start = std::chrono::steady_clock::now();
  probe::ProbeRun run;
  {
    std::optional<CpuHog> hog;
    const bool hogged = fault.action == FaultAction::cpu_hog && fault.rank == session.rank();
    run = probe::run_probes(options, session.local_rank(), [&] { session.barrier(); }, [&](bool on) {
      if (!hogged) return;
      if (on) {
        hog.emplace(probe::allowed_cpus());
      } else {
        hog.reset();
      }
    });
  }
  const double probe_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - steady_start).count();
  std::vector<probe::ProbeRecord>& records = run.records;
  for (auto& r : records) {
    r.rank = session.rank();
    r.host = session.host();
  }
  const auto gathered = session.gather(nlohmann::json(records).dump());
  if (session.rank() != 0) return std::nullopt;
  probe::ProbeDocument document;
  for (int i = 0; i < argc; ++i) document.command_line.emplace_back(argv[i]);
  document.start_time = iso_utc(start);
  document.end_time = iso_utc(std::chrono::system_clock::now());
  document.probe_seconds = probe_seconds;  // rank 0's: the ranks probe in step (a barrier before each probe)
  document.phase_seconds = run.phase_seconds;
  document.ranks = session.size();
  document.options = options;
  for (const auto& text : gathered) {
    for (auto& r : nlohmann::json::parse(text).get<std::vector<probe::ProbeRecord>>()) document.records.push_back(std::move(r));
  }
  probe::judge_hosts(document);
  return document;
}

void write_and_print_probe(const probe::ProbeDocument& document, const std::string& directory) {
  probe::write_probe_document(document, directory);
  std::printf("%s# probe results in %s\n", probe::probe_report(document).c_str(), directory.c_str());
  std::fflush(stdout);
}

void add_probe_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<ProbeArgs>();
  CLI::App* probe = app.add_subcommand(
      "probe", "Measure busy-core clock, stalls, map/unmap, NUMA and GPU signals on every rank (launch like run); "
               "exit 1 when a host stands out");
  probe->add_option("-o,--output", args->output, "Results directory (default: RESULTS_ROOT/probe/<UTC start>)");
  probe->add_option("--results-root", args->results_root, "Where the default results directory goes")
      ->capture_default_str();
  probe->add_flag("--quick", args->quick, "Shorter probes: under 5 s per rank instead of under 30 s");
  probe->add_option("--stall-seconds", args->stall_seconds, "How long the stall watcher runs (default 10, --quick 1)")
      ->check(CLI::Range(0.1, 3600.0));
  probe->add_option("--engine", args->engine, "nccl (every probe) or mpi (CPU probes only; GPU probes skipped)")
      ->check(one_of({"nccl", "mpi"}))
      ->capture_default_str();
  probe->add_option("--inject-fault", args->fault,
                    "Testing aid: RANK:cpu-hog keeps every core of that rank busy from outside its scheduling group "
                    "(docs/probe.md)");
  probe->callback([args, &chosen] { chosen = [args](CommandContext& context) { return run_probe(*args, context); }; });
}

}  // namespace ncclsweep
