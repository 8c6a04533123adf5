#include "runtime/locate_launch.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <span>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/output_file.hpp"
#include "core/printf_text.hpp"
#include "core/utc_time.hpp"
#include "locate/locate_reference.hpp"
#include "locate/locate_results.hpp"
#include "locate/locate_text.hpp"
#include "ncclsweep_version.hpp"
#include "results/results_directory.hpp"
#include "runtime/engine_registry.hpp"
#include "runtime/in_process_engine.hpp"
#include "transport/mpi_session.hpp"
#include "transport/rank_refusal.hpp"

namespace ncclsweep {
namespace {

using namespace locate;

// The nccl engine needs a GPU per rank: two ranks on one GPU measure nothing of the GPU.
// Collective; the same reason (or none) on every rank.
std::string shared_gpu_reason(RankGroup& ranks, EngineKind kind, const Engine& engine) {
  if (kind != EngineKind::nccl) return "";
  const std::vector<std::string> keys = ranks.gather(ranks.host() + " " + engine.device().pci_bus_id);
  std::string reason;
  if (ranks.rank() == 0) {
    const std::set<std::string> gpus(keys.begin(), keys.end());
    if (gpus.size() < 2) {
      reason = "locate needs at least two GPUs; the " + std::to_string(keys.size()) + " ranks share " +
               std::to_string(gpus.size()) + " GPU";
    } else if (gpus.size() < keys.size()) {
      reason = "locate needs one GPU per rank; " + std::to_string(keys.size()) + " ranks share " +
               std::to_string(gpus.size()) + " GPUs";
    }
  }
  return ranks.broadcast_string(reason);
}

// A fault aimed at a rank or host this launch lacks would slow nothing and pass.
std::string missing_fault_target(const SlowFault& fault, const std::vector<std::string>& hosts) {
  const int ranks = static_cast<int>(hosts.size());
  const auto has_host = [&hosts](const std::string& h) { return std::find(hosts.begin(), hosts.end(), h) != hosts.end(); };
  std::string missing;
  if (fault.rank >= ranks) missing = "rank " + std::to_string(fault.rank);
  for (const int r : fault.pair) {
    if (r >= ranks) missing = "rank " + std::to_string(r);
  }
  for (const std::string* h : {&fault.host_a, &fault.host_b}) {
    if (!h->empty() && !has_host(*h)) missing = "host " + *h;
  }
  return missing;
}

// What a launch checked, set up and measured; every rank holds the same, except that
// rank 0 alone holds the reference.
struct LocateSetup {
  SlowFault fault;
  std::vector<std::string> hosts;
  HostLayout layout;
  std::optional<ReferenceFigures> reference;
  std::unique_ptr<Engine> engine;
  std::vector<std::string> notes;
  std::string dir;                       // the results directory
  std::optional<RecordsJournal> records;  // rank 0: its records.jsonl, appended step by step
};

// Collective: the checks every rank agrees on before anything is measured; nullopt, with
// `refusal` as refusal_of_any_rank gives it, when one refused.
std::optional<LocateSetup> set_up(RankGroup& ranks, const LocateRequest& request, const LaunchServices& services,
                                  std::chrono::system_clock::time_point start, std::string& refusal) {
  LocateSetup setup;
  std::string error;
  const auto refused = [&](const std::string& message) {
    const std::optional<std::string> r = refusal_of_any_rank(ranks, message);
    if (r) refusal = *r;
    return r.has_value();
  };
  try {
    check_engine(request.engine);
    if (!request.fault.empty()) {
      setup.fault = parse_slow_fault(request.fault);
      if (request.engine != EngineKind::mpi) throw UsageError("--inject-fault slow= is a testing aid of the mpi engine", "add --engine mpi");
    }
    if (ranks.size() < 2) {
      throw UsageError("locate needs at least two ranks on two GPUs (it measures GPUs and hosts against each other); "
                       "this launch has 1 rank",
                       "launch it with mpirun -np N or srun, one rank per GPU, N >= 2");
    }
  } catch (const UsageError& e) {
    error = e.message();
  }
  if (refused(error)) return std::nullopt;
  setup.hosts = rank_hosts(ranks);
  setup.layout = layout_from_hosts(setup.hosts);
  if (const std::string missing = missing_fault_target(setup.fault, setup.hosts); setup.fault.active() && !missing.empty()) {
    error = UsageError("--inject-fault '" + request.fault + "' names " + missing + ", which this launch does not have (" +
                           std::to_string(ranks.size()) + " ranks on " + std::to_string(setup.layout.host_count()) +
                           " host(s))",
                       "name a rank below " + std::to_string(ranks.size()) + " or a host of the launch")
                .message();
  }
  if (refused(error)) return std::nullopt;
  // --reference: read on rank 0, which judges; every rank stops on a bad one. The same for
  // an --svg path rank 0 could not write once everything is measured.
  if (ranks.rank() == 0) {
    try {
      if (!request.reference_dir.empty()) {
        setup.reference = load_reference(request.reference_dir, setup.layout, request.options, request.engine);
      }
      if (!request.svg_path.empty()) check_output_file(request.svg_path, "--svg");
    } catch (const UsageError& e) {
      error = e.message();
    }
  }
  if (refused(error)) return std::nullopt;
  try {
    setup.engine = services.make_engine(request.engine);
  } catch (const UsageError& e) {
    error = e.message();
  }
  if (refused(error)) return std::nullopt;
  if (refused(shared_gpu_reason(ranks, request.engine, *setup.engine))) return std::nullopt;
  // The results directory last of the checks, before anything is measured: one that holds a
  // run is bad input.
  setup.dir = !request.output_dir.empty() ? request.output_dir
                                          : default_results_dir(request.results_root, "locate", compact_utc(start)).string();
  if (ranks.rank() == 0) {
    try {
      setup.records.emplace(open_locate_results(setup.dir));
    } catch (const UsageError& e) {
      error = e.message();
    }
  }
  if (refused(error)) return std::nullopt;
  const HostLayout& layout = setup.layout;
  if (request.options.pairs_phase && layout.host_count() < 2) {
    setup.notes.push_back("one host only: the pairs phase has no pairs (give each GPU its own host name with "
                          "NCCLSWEEP_FAKE_HOSTNAME to pair GPUs instead)");
  }
  const bool host_measured =
      std::any_of(layout.host_ranks.begin(), layout.host_ranks.end(), [](const auto& r) { return r.size() >= 2; });
  if (request.options.host_phase && !host_measured) {
    setup.notes.push_back("one rank per host: the host phase has nothing to measure");
  }
  return setup;
}

// Rank 0: the verdicts, the results directory and the summary to present; the status.
int finish_on_leader(const LocateRequest& request, const LocateSetup& setup, const LocateRun& run,
                     const std::string& split_description, std::chrono::system_clock::time_point start,
                     LocateSummary& summary) {
  const LocateOptions& options = request.options;
  const ReferenceFigures* reference = setup.reference ? &*setup.reference : nullptr;
  const Verdicts verdicts = judge(setup.layout, run.measurements, options.threshold, reference);
  const std::string& dir = setup.dir;
  LocateDocument document;
  document.version = std::string(NCCLSWEEP_VERSION) + " (" + NCCLSWEEP_GIT_SHA + ")";
  document.engine = request.engine;
  document.start_time = iso_utc(start);
  document.end_time = iso_utc(std::chrono::system_clock::now());
  document.command_line = request.command_line;
  document.rank_hosts = setup.hosts;
  document.options = options;
  document.fault = request.fault;
  document.reference = setup.reference;
  document.split_mode = split_description;
  document.steps = run.steps;
  document.notes = setup.notes;
  write_locate_document(dir, document, verdicts);
  summary.layout = setup.layout;
  summary.verdicts = verdicts;
  summary.threshold = options.threshold;
  summary.passes = options.passes;
  summary.iters = options.iters;
  summary.reference = reference ? reference->source : "";
  summary.directory = dir;
  summary.steps = run.steps;
  // Unresolved is no all-clear: something is below the threshold and this run cannot say
  // whether noise put it there.
  return verdicts.all_clear() ? kExitOk : kExitFindings;
}

}  // namespace

LocateOutcome run_locate_launch(RankGroup& ranks, const LocateRequest& request, const LaunchServices& services) {
  const bool leader = ranks.rank() == 0;
  const auto start = std::chrono::system_clock::now();
  std::string refusal;
  std::optional<LocateSetup> setup = set_up(ranks, request, services, start, refusal);
  if (!setup) return LocateOutcome::refused(refusal);
  const LocateOptions& options = request.options;
  std::ostream& progress = command_streams(request.format, *services.display).notes;
  if (leader) {
    progress << printf_text("# locate: %d host(s), %d rank(s), %s engine, threshold %.2f of ", setup->layout.host_count(),
                            setup->layout.ranks(), name_of(request.engine).data(), options.threshold)
             << (setup->reference ? "the reference " + setup->reference->source : std::string("the median of the hosts"))
             << "\n";
    for (const std::string& note : setup->notes) progress << "# note: " << note << "\n";
    if (setup->fault.active()) progress << "# testing aid: --inject-fault " << request.fault << "\n";
  }
  const SplitMode split = split_mode(request.engine, *setup->engine);
  if (leader) progress << "# splits: " << split.description << std::endl;
  LocateRun run;
  try {
    Engine& engine = *setup->engine;
    engine.connect(split.world_config);
    run = run_locate(engine, ranks, setup->layout, options, setup->fault,
                     [&](const StepTime& t, std::span<const MeasurementRecord> measured, int index, int total) {
                       if (!leader) return;
                       setup->records->append_values(measured);
                       progress << step_text(t, index, total, options.passes) << std::flush;
                     },
                     [&](const Step& step, const std::vector<SlowWarmUp>& slow, int index, int total) {
                       if (leader) progress << slow_warm_up_text(setup->layout, step, slow, index, total) << std::flush;
                     });
    engine.disconnect();
    engine.settle();
  } catch (...) {
    if (setup->records) setup->records->remove_if_unused();  // -o DIR works again once the cause is fixed
    stop_every_rank(ranks, std::current_exception());  // rethrows what it does not own
  }
  int status = kExitOk;
  LocateOutcome outcome;
  if (leader) {
    try {
      outcome.result.emplace();
      status = finish_on_leader(request, *setup, run, split.description, start, *outcome.result);
    } catch (const UsageError& e) {
      outcome.error = e.message();
      outcome.result.reset();
      status = kExitUsage;
    }
  }
  // Every rank exits with rank 0's verdict, so the launcher's status is it.
  outcome.status = ranks.max_across_ranks(status);
  return outcome;
}

LocateOutcome run_locate_launch(MpiSession& session, const LocateRequest& request) {
  return run_locate_launch(session, request, mpi_launch_services(session, nullptr));
}

}  // namespace ncclsweep
