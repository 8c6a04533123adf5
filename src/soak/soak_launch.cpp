#include "soak/soak_launch.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <span>

#include <nlohmann/json.hpp>

#include "core/errors.hpp"
#include "core/printf_text.hpp"
#include "core/utc_time.hpp"
#include "locate/host_layout.hpp"
#include "measure/fixed_test.hpp"
#include "ncclsweep_version.hpp"
#include "results/atomic_file.hpp"
#include "results/results_directory.hpp"
#include "results/results_lock.hpp"
#include "runtime/engine_registry.hpp"
#include "measure/fault_injection.hpp"
#include "runtime/in_process_engine.hpp"
#include "transport/mpi_session.hpp"
#include "transport/rank_refusal.hpp"
#include "runtime/stop_signals.hpp"
#include "soak/soak_metrics.hpp"
#include "soak/soak_results.hpp"

namespace ncclsweep::soak {
namespace {

// What every rank needs from rank 0 before the loop: the options (from run.json on a
// --resume) and where the timeline goes on.
struct Plan {
  SoakDocument document;
  std::vector<SoakWindow> windows;  // rank 0: the earlier windows of a --resume
  TimelineStart start;
  std::string dir;
  std::shared_ptr<ResultsLock> lock;  // rank 0: one writer per results directory, held to the end
  std::shared_ptr<RecordsJournal> records;  // rank 0: records.jsonl, one window a line
};

nlohmann::json plan_json(const Plan& p) {
  return {{"options", options_json(p.document.options)}, {"fault", p.document.fault},
          {"next_window", p.start.next_window}, {"elapsed_s", p.start.elapsed_s}, {"launch", p.start.launch}};
}

void apply_plan_json(const nlohmann::json& j, Plan& p) {
  p.document.options = options_from(j.at("options"));
  p.document.fault = j.at("fault").get<std::string>();
  p.start = {j.at("next_window").get<int>(), j.at("elapsed_s").get<double>(), j.at("launch").get<int>()};
}

// Rank 0: the new soak's directory, or the earlier one of --resume with its windows.
Plan plan_on_leader(const SoakRequest& request, const std::vector<std::string>& hosts,
                    std::chrono::system_clock::time_point start) {
  Plan p;
  std::string command;
  for (const std::string& word : request.command_line) command += (command.empty() ? "" : " ") + word;
  if (!request.resume_dir.empty()) {
    p.dir = request.resume_dir;
    // Before its windows are read: a soak still writing them refuses this one.
    if (std::filesystem::is_directory(p.dir)) p.lock = ResultsLock::take(p.dir, command);
    SoakResults earlier = read_soak_results(p.dir);
    if (earlier.document.rank_hosts != hosts) {
      throw UsageError("cannot resume " + p.dir + ": it ran on " + std::to_string(earlier.document.rank_hosts.size()) +
                           " rank(s) on other hosts than this launch's " + std::to_string(hosts.size()),
                       "resume on the same allocation (the same hosts, ranks per host), or start a new soak");
    }
    if (earlier.document.engine != request.engine) {
      const std::string earlier_engine(name_of(earlier.document.engine));
      throw UsageError("cannot resume " + p.dir + ": it used the " + earlier_engine + " engine",
                       "resume with --engine " + earlier_engine);
    }
    p.records = std::make_shared<RecordsJournal>(
        RecordsJournal::resume(p.dir, earlier.complete_bytes, "go on with --resume " + p.dir));
    p.document = earlier.document;
    p.windows = std::move(earlier.windows);
    if (request.duration_s) p.document.options.duration_s = *request.duration_s;
    if (!request.metrics_file.empty()) p.document.metrics_file = request.metrics_file;
    const int launch = p.document.launches.empty() ? 1 : p.document.launches.back().launch + 1;
    p.start = {p.windows.empty() ? 0 : p.windows.back().index + 1, p.windows.empty() ? 0 : p.windows.back().end_s,
               launch};
  } else {
    p.dir = !request.output_dir.empty() ? request.output_dir
                                        : default_results_dir(request.results_root, "soak", compact_utc(start)).string();
    std::error_code ignored;
    std::filesystem::create_directories(p.dir, ignored);  // create_soak_results says why, if this failed
    if (std::filesystem::is_directory(p.dir)) p.lock = ResultsLock::take(p.dir, command);
    create_soak_results(p.dir);
    p.document.options = request.options.value();
    p.document.engine = request.engine;
    p.document.rank_hosts = hosts;
    p.document.fault = request.fault;
    p.document.metrics_file = request.metrics_file;
  }
  p.document.version = std::string(NCCLSWEEP_VERSION) + " (" + NCCLSWEEP_GIT_SHA + ")";
  p.document.command_line = request.command_line;
  p.document.launches.push_back({p.start.launch, iso_utc(start), "", "running"});
  // A metrics file that cannot be written is bad input, found before anything runs.
  if (!p.document.metrics_file.empty()) {
    try {
      write_file_atomically(p.document.metrics_file, soak_metrics(p.windows, locate::layout_from_hosts(hosts).hosts,
                                                                  judge_document(p.document, p.windows)));
    } catch (const RuntimeFailure& e) {
      throw UsageError("--metrics-file: " + e.call() + ": " + e.what(), "give a path in a writable directory");
    }
  }
  // Last, so that a soak refused above leaves no records.jsonl behind.
  if (!p.records) p.records = std::make_shared<RecordsJournal>(RecordsJournal::create(p.dir, "go on with --resume " + p.dir));
  return p;
}

std::string window_line(const SoakWindow& w, const std::vector<std::string>& hosts) {
  std::string figures;
  for (const MeasurementRecord& f : w.figures) {
    if (place_of(f).scope != SoakScope::world) continue;
    figures += (figures.empty() ? "" : ", ") + test_name(*f.collective, f.size_bytes) +
               printf_text(" %.3g GB/s", f.busbw_gbps > 0 ? f.busbw_gbps : f.algbw_gbps);
  }
  int clocks = 0, lowest = 0;
  for (const RankSignals& s : w.signals) {
    if (s.gpu.gap != Gap::none) continue;
    lowest = clocks++ == 0 ? s.gpu.sm_mhz : std::min(lowest, s.gpu.sm_mhz);
  }
  const std::string clock_text = clocks > 0 ? printf_text("; lowest SM clock %d MHz", lowest) : "";
  return printf_text("# window %d: %.1f-%.1f s, %zu host(s), world ", w.index, w.start_s, w.end_s, hosts.size()) +
         figures + clock_text + "\n";
}

// The checks every rank makes alike (the fault text and its rank); empty when fine.
std::string fault_refusal(const SoakRequest& request, int ranks, FaultInjection& fault) {
  try {
    check_engine(request.engine);
    if (request.fault.empty()) return "";
    fault = parse_fault_injection(request.fault);
    if (fault.action != FaultAction::slow) {
      throw UsageError("--inject-fault '" + request.fault + "': soak injects only slow downs",
                       "write RANK:slow=FACTOR[@t=SECONDS|@flap=SECONDS], e.g. 5:slow=4@t=60");
    }
    if (request.engine != EngineKind::mpi) throw UsageError("--inject-fault slow= is a testing aid of the mpi engine", "add --engine mpi");
    if (fault.rank >= ranks) {
      throw UsageError("--inject-fault names rank " + std::to_string(fault.rank) + " of a launch of " +
                           std::to_string(ranks) + " ranks",
                       "name a rank from 0 to " + std::to_string(ranks - 1));
    }
  } catch (const UsageError& e) {
    return e.message();
  }
  return "";
}

}  // namespace

SoakOutcome run_soak_launch(RankGroup& ranks, const SoakRequest& request, const LaunchServices& services) {
  const bool leader = ranks.rank() == 0;
  const auto start = std::chrono::system_clock::now();
  FaultInjection fault;
  if (auto refusal = refusal_of_any_rank(ranks, fault_refusal(request, ranks.size(), fault))) {
    return SoakOutcome::refused(*refusal);
  }
  const std::vector<std::string> hosts = rank_hosts(ranks);
  const locate::HostLayout layout = locate::layout_from_hosts(hosts);
  Plan plan;
  std::string error;
  if (leader) {
    try {
      plan = plan_on_leader(request, hosts, start);
    } catch (const UsageError& e) {
      error = e.message();
    }
  }
  if (auto refusal = refusal_of_any_rank(ranks, error)) return SoakOutcome::refused(*refusal);
  // The fault of a resumed soak is the one it started with.
  apply_plan_json(nlohmann::json::parse(ranks.broadcast_string(leader ? plan_json(plan).dump() : "")), plan);
  if (!plan.document.fault.empty()) fault = parse_fault_injection(plan.document.fault);
  std::unique_ptr<Engine> engine;
  try {
    engine = services.make_engine(request.engine);
  } catch (const UsageError& e) {
    error = e.message();
  }
  if (auto refusal = refusal_of_any_rank(ranks, error)) return SoakOutcome::refused(*refusal);

  const std::vector<std::string>& host_list = layout.hosts;
  const CommandStreams out = command_streams(request.format, *services.display);
  if (leader) {
    out.notes << printf_text("# soak: %d host(s), %d rank(s), %s engine, windows of %.0f s until %.0f s",
                             layout.host_count(), layout.ranks(), name_of(request.engine).data(),
                             plan.document.options.window_s, plan.document.options.duration_s)
              << (plan.start.next_window > 0 ? ", resuming at window " + std::to_string(plan.start.next_window) : "")
              << "; results " << plan.dir << "\n";
    if (fault.action == FaultAction::slow) out.notes << "# testing aid: --inject-fault " << plan.document.fault << "\n";
    out.notes.flush();
  }
  SoakEnd end = SoakEnd::duration;
  // Rank 0's verdicts over the windows so far: judged once per window.
  SoakVerdicts latest;
  if (leader) latest = judge_document(plan.document, plan.windows);
  const auto write_metrics = [&](const SoakVerdicts& verdicts) {
    if (plan.document.metrics_file.empty()) return;
    write_file_atomically(plan.document.metrics_file, soak_metrics(plan.windows, host_list, verdicts));
  };
  try {
    if (leader) write_soak_document(plan.dir, plan.document, plan.windows, latest);
    const SplitMode split = split_mode(request.engine, *engine);
    engine->connect(split.world_config);
    std::unique_ptr<WindowSampler> sampler = make_engine_sampler(*engine);
    end = run_soak(*engine, ranks, layout, plan.document.options, *sampler, fault, plan.start,
                   [&] { return services.received_signal(); },
                   [&](const SoakWindow& window) {
                     if (!leader) return;
                     plan.records->append_values(std::span(&window, 1));
                     plan.windows.push_back(window);
                     plan.document.launches.back().end_utc = window.end_utc;
                     latest = judge_document(plan.document, plan.windows);
                     write_soak_document(plan.dir, plan.document, plan.windows, latest);
                     write_metrics(latest);
                     out.notes << window_line(window, host_list) << std::flush;
                   },
                   [&] { return leader && wants_trace(latest); });
    engine->disconnect();
    engine->settle();
  } catch (...) {
    stop_every_rank(ranks, std::current_exception());  // rethrows what it does not own
  }

  int status = kExitOk;
  SoakOutcome outcome;
  if (leader) {
    try {
      LaunchEntry& launch = plan.document.launches.back();
      launch.end = end == SoakEnd::stopped ? "stopped" : "duration";
      launch.end_utc = iso_utc(std::chrono::system_clock::now());
      write_soak_document(plan.dir, plan.document, plan.windows, latest);
      write_metrics(latest);
      SoakSummary& summary = outcome.result.emplace();
      summary.hosts = host_names(plan.document);
      summary.verdicts = latest;
      summary.directory = plan.dir;
      if (end == SoakEnd::stopped) summary.stopped_after = plan.windows.back().index;
      status = latest.anything() ? kExitFindings : kExitOk;
    } catch (const UsageError& e) {
      outcome.error = e.message();
      outcome.result.reset();
      status = kExitUsage;
    } catch (const RuntimeFailure& e) {
      outcome.error = e.message(0, ranks.host());
      outcome.result.reset();
      status = kExitRuntime;
    }
  }
  status = ranks.max_across_ranks(status);
  // A stop ends with the signal's status, as a stopped run does (the verdicts are kept).
  if (end == SoakEnd::stopped && status != kExitUsage && status != kExitRuntime) {
    const int signal = services.received_signal();
    status = exit_status_for_signal(signal ? signal : 15);
  }
  outcome.status = status;
  return outcome;
}

SoakOutcome run_soak_launch(MpiSession& session, const SoakRequest& request) {
  const StopSignals signals;
  return run_soak_launch(session, request, mpi_launch_services(session, &signals));
}

}  // namespace ncclsweep::soak
