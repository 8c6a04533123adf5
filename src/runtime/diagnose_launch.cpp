#include "runtime/diagnose_launch.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <optional>
#include <sstream>
#include <cstring>

#include "compare/comparison.hpp"
#include "compare/diagnosis.hpp"
#include "compare/probe_comparison.hpp"
#include "compare/side_readers.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/json_input.hpp"
#include "core/output_file.hpp"
#include "core/utc_time.hpp"
#include "doctor/checks.hpp"
#include "doctor/gpu_probe.hpp"
#include "locate/locate_results.hpp"
#include "probe/probe_run.hpp"
#include "report/diagnosis_report.hpp"
#include "results/results_directory.hpp"
#include "results/search_summary.hpp"
#include "runtime/diagnose_budget.hpp"
#include "runtime/engine_registry.hpp"
#include "runtime/in_process_engine.hpp"
#include "runtime/launch.hpp"
#include "runtime/locate_launch.hpp"
#include "runtime/preflight.hpp"
#include "runtime/probe_launch.hpp"
#include "runtime/run_entry.hpp"
#include "runtime/stop_signals.hpp"
#include "search/search.hpp"
#include "spec/sweep.hpp"
#include "transport/rank_refusal.hpp"

namespace ncclsweep {
namespace diagnose_steps {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The phases' tables and lines are progress, shown where the command asked.
LaunchServices services_showing(MpiSession& session, const StopSignals* signals, std::ostream* display) {
  LaunchServices services = mpi_launch_services(session, signals);
  services.display = display;
  return services;
}

// One run phase, its SIGINT/SIGTERM handlers installed only while it runs (as `run` does).
int run_phase(MpiSession& session, const LaunchRequest& request, std::ostream* display) {
  const StopSignals signals;
  return run_launch(session, request, services_showing(session, &signals, display));
}

// A phase that ended with a failure (a runtime error, a signal): the phases after it do
// not run, and what the phases before it measured is still judged and written.
struct StoppedPhase {
  std::string phase;
  int status = 0;  // 0: none stopped
};

std::string stopped_text(const StoppedPhase& stopped, const std::string& dir) {
  return "the phase stopped with exit status " + std::to_string(stopped.status) + " (" + dir + ")";
}

constexpr const char* kAfterStop = "the error above says why; diagnose again once it is fixed";

bool is_diagnose_dir(const std::filesystem::path& path) { return std::filesystem::exists(path / kDiagnoseFile); }

// A run or diagnose directory, nccl-tests text or JSON: the side the calls are compared
// with. A diagnose directory stands for the run inside it.
std::filesystem::path reference_input(const std::string& reference) {
  const std::filesystem::path path(reference);
  return is_diagnose_dir(path) ? path / kDiagnoseRunFolder : path;
}

// The platform figures of a reference diagnose directory; none for other references.
std::optional<probe::ProbeDocument> reference_probe(const std::string& reference) {
  const std::filesystem::path path(reference);
  if (!is_diagnose_dir(path) || !probe::is_probe_results(path / kDiagnoseProbeFolder)) return std::nullopt;
  return probe::read_probe_document(path / kDiagnoseProbeFolder);
}

// Ranks per host, hosts in order of first appearance.
std::vector<int> host_sizes(const std::vector<std::string>& hosts) {
  std::vector<std::string> seen;
  std::vector<int> sizes;
  for (const auto& h : hosts) {
    std::size_t i = 0;
    while (i < seen.size() && seen[i] != h) ++i;
    if (i == seen.size()) seen.push_back(h), sizes.push_back(0);
    ++sizes[i];
  }
  return sizes;
}

// The measurements one repeat of the plan makes: points x calls x placements.
long long measurements_per_repeat(const LaunchRequest& request) {
  long long points = 0;
  for (const auto& g : request.groups) points += static_cast<long long>(g.points.size());
  long long placements = 0;
  for (const PlannedCall& c : request.plan.calls) placements += c.call.kind->supports_in_place ? 2 : 1;
  return std::max(1LL, points) * placements;
}

long long measurement_count(const LaunchRequest& request) {
  return measurements_per_repeat(request) * std::max(1, request.spec.repeats);
}

std::vector<doctor::Finding> preflight_phase(MpiSession& session, char** envp) {
  doctor::GpuFacts gpu = doctor::probe_gpu(session.local_rank());
  doctor::add_gpu_state(gpu);
  const auto mine = collect_local_facts(session, envp, std::move(gpu));
  const auto all = gather_facts(session, mine);
  return session.rank() == 0 ? doctor::evaluate(all) : std::vector<doctor::Finding>{};
}

// The hosts and links locate's verdicts name, read back from its directory: the slow
// ones, those below the threshold within noise, and what would tell these from noise.
void add_locate_verdicts(const std::filesystem::path& dir, const locate::LocateOptions& options, DiagnoseEvidence& e) {
  const locate::LocateResults results = locate::read_locate_results(dir);
  const locate::HostLayout layout = locate::layout_from_hosts(results.document.rank_hosts);
  const auto& reference = results.document.reference;
  const locate::Verdicts verdicts =
      locate::judge(layout, results.measurements, options.threshold, reference ? &*reference : nullptr);
  const auto subjects = [&](const std::vector<locate::Finding>& findings) {
    std::vector<SlowSubject> out;
    for (const locate::Finding& f : findings) {
      SlowSubject s;
      s.kind = std::string(locate::name_of(f.kind));
      for (int h : f.hosts) s.hosts.push_back(layout.hosts[static_cast<std::size_t>(h)]);
      s.ranks = f.ranks;
      s.ratio = f.ratio;
      out.push_back(std::move(s));
    }
    return out;
  };
  e.slow = subjects(verdicts.findings);
  e.unsettled = subjects(verdicts.unresolved);
  for (const std::string& note : locate::resolution_notes(verdicts, options.iters)) {
    e.hosts_settle += (e.hosts_settle.empty() ? "" : "; ") + note;
  }
}

// The flags of the settings search (--sweep): the calls' own flags, the sweep's settings,
// within the phase's seconds. Unless the file names a method: racing where it can pay for
// its first round and the final A/B out of the full grid (docs/search.md), else the grid,
// measured whole in the search's rounds.
RunFlags settings_flags(const RunFlags& calls, const Sweep& sweep, const DiagnoseRequest& request,
                        const std::string& dir, double seconds) {
  RunFlags flags = calls;
  flags.sweep_file = request.sweep_file;
  flags.output = (std::filesystem::path(dir) / kDiagnoseSettingsFolder).string();
  if (sweep.search.where.line == 0) {
    const SweepPlan plan = plan_sweep(sweep, calls.plan_options);
    const long points = static_cast<long>(plan.points.size());
    const long repeats = calls.measurements.repeats.value_or(plan.repeats);
    flags.search_method = points * repeats >= points + 2L * SearchOptions{}.ab_repeats ? SearchMethod::racing
                                                                                       : SearchMethod::grid;
  }
  flags.budget = std::to_string(std::max(1, static_cast<int>(seconds))) + "s";
  return flags;
}

// A settings sweep with sizes of its own would measure other calls than the workload's.
void check_settings_sizes(const Sweep& sweep, const DiagnoseRequest& request) {
  if (!request.workload || (sweep.sizes_where.line == 0 && !sweep.sizes_from)) return;
  throw UsageError("diagnose --sweep searches at the workload's calls, and this sweep's sizes: would replace them",
                   "drop sizes: from " + request.sweep_file + " (diagnose gives the search the workload's calls)",
                   sweep.sizes_where.line > 0 ? sweep.sizes_where : sweep.sizes_from->where);
}

// search.json of the settings search, or why there is none.
void read_settings(const std::filesystem::path& dir, int status, DiagnoseEvidence& evidence) {
  const std::filesystem::path file = dir / kSearchFileName;
  if (status != kExitOk) {
    evidence.settings_note = "the search stopped with exit status " + std::to_string(status) + " (" + dir.string() + ")";
    return;
  }
  try {
    const std::string text = read_input_file(file.string(), kResultsFileInput);
    evidence.settings = parse_json_input(text, {file.string(), 0, 0}, max_json_values(kResultsFileInput)).get<SearchSummary>();
  } catch (const std::exception& e) {
    evidence.settings_note = std::string("no search summary: ") + e.what();
  }
}

}  // namespace diagnose_steps

DiagnoseOutcome run_diagnose_launch(MpiSession& session, const DiagnoseRequest& request, char** envp,
                                    const DiagnoseProgress& progress) {
  using namespace diagnose_steps;
  const bool leader = session.rank() == 0;
  const auto started = Clock::now();
  std::ostream discard(nullptr);  // where the phases' lines go when nobody shows them
  std::ostream* const shown = progress.phases ? progress.phases : &discard;

  // Bad input first, the same answer on every rank: the fault, the reference, the plan,
  // the budget.
  std::string error;
  FaultInjection fault;
  std::optional<Side> reference;
  std::optional<probe::ProbeDocument> reference_platform;
  try {
    if (request.plan_only) check_diagnose_plan_format(request.format);
    if (!request.fault.empty()) fault = parse_fault_injection(request.fault);
    if (leader) reference = load_side(reference_input(request.reference));
    if (leader) reference_platform = reference_probe(request.reference);
  } catch (const UsageError& e) {
    error = e.message();
  }
  if (auto refusal = refusal_of_any_rank(session, error)) {
    return DiagnoseOutcome::refused(*refusal);
  }
  // The platform phase holds a cpu-hog fault as probe does: refused where its busy loops
  // would share a core with another host's rank and slow that host too.
  if (auto refusal = cpu_hog_refusal(session, fault)) return DiagnoseOutcome::refused(*refusal);

  const std::string dir = session.broadcast_string(
      leader ? (!request.output_dir.empty()
                    ? request.output_dir
                    : default_results_dir(request.results_root, "diagnose", compact_utc(std::chrono::system_clock::now()))
                          .string())
             : std::string());
  const std::vector<std::string> hosts = rank_hosts(session);
  const std::vector<int> sizes = host_sizes(hosts);
  const EngineKind engine = request.run.measurements.engine.value_or(default_engine());
  const locate::LocateOptions locate_options = diagnose_locate_options(engine);

  RunFlags flags = request.run;
  flags.output = (std::filesystem::path(dir) / kDiagnoseRunFolder).string();
  flags.progress = ProgressSetting::off;
  flags.fault = fault.action == FaultAction::slow ? request.fault : std::string();
  const RankLayout layout = rank_layout(session);
  LaunchRequest run, settings;
  DiagnoseBudget budget;
  const bool settings_search = !request.sweep_file.empty();
  const int reference_repeats = session.max_across_ranks(leader ? most_repeats(*reference) : 0);
  const int wanted_repeats = std::clamp(reference_repeats, kDiagnoseMinRepeats, kDiagnoseMaxRepeats);
  RepeatsSource repeats_from = flags.measurements.repeats ? RepeatsSource::flag : RepeatsSource::reference;
  try {
    // Unless --repeats, the calls are repeated as the reference's were, interleaved: a
    // transient then touches one repeat of several calls, not a call's only sample. A
    // budget too short for those repeats takes fewer (never fewer than the user's).
    RunFlags calls = flags;
    if (!calls.measurements.order) calls.measurements.order = RepeatOrder::interleaved;
    calls.measurements.repeats = flags.measurements.repeats.value_or(wanted_repeats);
    run = build_run_plan(calls, {"", nullptr, request.workload}, layout);
    const long long per_repeat = measurements_per_repeat(run);
    for (int repeats = *calls.measurements.repeats;; --repeats) {
      try {
        budget = plan_diagnose_budget(request.budget_s, sizes, locate_options, engine, per_repeat * repeats,
                                      settings_search);
        if (repeats < *calls.measurements.repeats) repeats_from = RepeatsSource::budget;
        calls.measurements.repeats = repeats;
        break;
      } catch (const UsageError&) {
        if (flags.measurements.repeats || repeats == 1) throw;
      }
    }
    if (!flags.measurements.iters) {
      // The budget caps each measurement's timed seconds (never above the flags' own cap).
      for (RunFlags* f : {&flags, &calls}) {
        f->measurements.stopping.max_seconds = std::min(f->measurements.stopping.max_seconds, budget.per_measurement_s);
        f->measurements.stopping.min_seconds = std::min(f->measurements.stopping.min_seconds, budget.per_measurement_s);
      }
    }
    if (!flags.measurements.iters || *calls.measurements.repeats != run.spec.repeats) {
      run = build_run_plan(calls, {"", nullptr, request.workload}, layout);
    }
    if (settings_search) {
      // The search keeps the flags' own repeats and order: it has its own method's.
      const std::string text = read_sweep_text(session, request.sweep_file);
      const Sweep sweep = load_sweep_text(text, request.sweep_file);
      check_settings_sizes(sweep, request);
      settings = build_run_plan(settings_flags(flags, sweep, request, dir, budget.phases.back().planned_s),
                                {text, nullptr, request.workload}, layout);
    }
  } catch (const UsageError& e) {
    error = e.message();
  }
  if (auto refusal = refusal_of_any_rank(session, error)) {
    return DiagnoseOutcome::refused(*refusal);
  }
  run.command_line = request.command_line;
  run.envp = envp;
  settings.command_line = request.command_line;
  settings.envp = envp;

  if (request.plan_only) {
    if (leader) {
      DiagnosePlan plan;
      plan.reference = request.reference;
      plan.budget_s = budget.total_s;
      plan.phases = budget.phases;
      plan.ranks = session.size();
      plan.hosts = static_cast<int>(sizes.size());
      plan.measurements = measurement_count(run);
      plan.repeats = run.spec.repeats;
      plan.repeats_from = repeats_from;
      plan.reference_repeats = reference_repeats;
      plan.wanted_repeats = wanted_repeats;
      if (!flags.measurements.iters) plan.per_measurement_s = budget.per_measurement_s;
      if (settings_search) {
        plan.settings_sweep = request.sweep_file;
        for (const auto& g : settings.groups) plan.settings_points += static_cast<long long>(g.points.size());
        if (settings.search) plan.settings_method = std::string(name_of(settings.search->options.method));
      }
      DiagnoseOutcome outcome = DiagnoseOutcome::with_status(kExitOk);
      outcome.result = plan;
      return outcome;
    }
    return DiagnoseOutcome::with_status(kExitOk);
  }

  Diagnosis diagnosis;
  diagnosis.reference = request.reference;
  diagnosis.results = dir;
  diagnosis.budget_s = budget.total_s;
  diagnosis.phases = budget.phases;
  if (leader && progress.budget_planned) progress.budget_planned(diagnosis);

  DiagnoseEvidence evidence;
  StoppedPhase stopped;  // what measured so far is still judged and written
  std::string stop_error;  // rank 0: what a phase's launch returned as its reason to stop
  {
    auto phase = Clock::now();
    evidence.preflight = preflight_phase(session, envp);
    diagnosis.phases[0].used_s = seconds_since(phase);

    phase = Clock::now();
    probe::ProbeOptions probe_options = probe::ProbeOptions::quick();
    probe_options.gpu = engine != EngineKind::mpi;
    const FaultInjection hog = fault.action == FaultAction::cpu_hog ? fault : FaultInjection{};
    const auto probed = probe_every_rank(session, probe_options, hog, request.command_line);
    if (probed) {
      probe::write_probe_document(*probed, std::filesystem::path(dir) / kDiagnoseProbeFolder);
      evidence.platform_measured = probed->hosts.size() >= 2;
      evidence.platform_against = "the other hosts";
      for (const auto& f : probed->findings) {
        if (f.severity != doctor::Severity::info) evidence.platform.push_back(f);
      }
      if (reference_platform) {
        // The reference's own figures: each host here against the median of its hosts.
        try {
          const ProbeComparison against = compare_probe_records(probed->records, reference_platform->records, {});
          for (auto& f : failing_findings(against)) evidence.platform.push_back(std::move(f));
          evidence.platform_against = evidence.platform_measured ? "the other hosts and the reference's probe figures"
                                                                 : "the reference's probe figures";
          evidence.platform_measured = true;
        } catch (const UsageError& e) {
          evidence.platform_notes.push_back("platform: not judged against the reference's probe figures: " + e.message());
        }
      }
      for (const auto& note : probed->notes) evidence.platform_notes.push_back("platform: " + note);
    }
    diagnosis.phases[1].used_s = seconds_since(phase);

    phase = Clock::now();
    evidence.hosts_threshold = locate_options.threshold;
    if (sizes.size() >= 2) {
      LocateRequest locate;
      locate.options = locate_options;
      locate.engine = engine;
      locate.fault = fault.action == FaultAction::slow ? request.fault : std::string();
      locate.output_dir = (std::filesystem::path(dir) / "locate").string();
      locate.command_line = request.command_line;
      const LocateOutcome located = run_locate_launch(session, locate, services_showing(session, nullptr, shown));
      if (located.result && progress.locate_judged) progress.locate_judged(*located.result);
      if (located.status != kExitOk && located.status != kExitFindings) {
        stopped = {diagnosis.phases[2].phase, located.status};
        evidence.hosts_stopped = stopped_text(stopped, locate.output_dir);
        stop_error = located.error;  // printed by the command above the diagnosis
      } else if (leader) {
        add_locate_verdicts(locate.output_dir, locate_options, evidence);
      }
      diagnosis.phases[2].used_s = seconds_since(phase);
    } else {
      evidence.hosts_skipped = "one host (" + hosts.front() + "): no other host to judge it against";
    }

    if (!stopped.status) {
      phase = Clock::now();
      if (const int status = run_phase(session, run, shown); status != kExitOk) {
        stopped = {diagnosis.phases[3].phase, status};
        evidence.collectives_note = stopped_text(stopped, run.output_dir);
        evidence.collectives_next = kAfterStop;
      }
      diagnosis.phases[3].used_s = seconds_since(phase);
    }

    if (settings_search) {
      evidence.settings_sweep = request.sweep_file;
      if (stopped.status) {
        evidence.settings_note = "the launch stopped before this phase";
      } else {
        phase = Clock::now();
        const int searched = run_phase(session, settings, shown);
        if (leader) read_settings(settings.output_dir, searched, evidence);
        diagnosis.phases[4].used_s = seconds_since(phase);
      }
    }
  }

  int exit_status = kExitOk;
  if (leader) {
    if (stopped.status) {
      if (evidence.collectives_note.empty()) {
        evidence.collectives_note = "not measured: the launch stopped before this phase";
        evidence.collectives_next = kAfterStop;
      }
    } else {
      try {
        const Side measured = load_side(flags.output);
        CompareOptions options;
        options.target = request.target;
        const Comparison comparison = compare_sides(measured, *reference, options);
        evidence.gate = comparison.acceptance;
        evidence.time = communication_time(comparison, measured.workload);
      } catch (const UsageError& e) {
        // Nothing comparable (other rank counts, no common row): the layer stays unresolved,
        // with diagnose's own way out (compare's fix names compare's flags).
        evidence.collectives_note = "not compared: " + std::string(e.what());
        const int reference_ranks = reference->identity.ranks;
        if (reference_ranks > 0 && reference_ranks != session.size()) {
          const auto ranks_text = [](int n) { return std::to_string(n) + (n == 1 ? " rank" : " ranks"); };
          evidence.collectives_next = "launch diagnose on " + ranks_text(reference_ranks) +
                                      ", as the reference ran, or give a reference measured on " + ranks_text(session.size());
        }
      }
    }
    const Diagnosis attributed = attribute(evidence);
    diagnosis.rows = attributed.rows;
    diagnosis.gate = attributed.gate;
    diagnosis.time = attributed.time;
    diagnosis.notes = attributed.notes;
    if (stopped.status) {
      diagnosis.stopped_status = stopped.status;
      diagnosis.notes.push_back("the launch stopped in its " + stopped.phase + " phase with exit status " +
                                std::to_string(stopped.status) + "; the phases after it did not run");
    }
    const double total = seconds_since(started);
    if (total > budget.total_s) {
      diagnosis.notes.push_back("the launch took " + std::to_string(static_cast<int>(total)) + " s, beyond its budget");
    }
    std::ostringstream document;
    print_diagnosis(diagnosis, ReportFormat::json, document);
    const std::filesystem::path file = std::filesystem::path(dir) / kDiagnoseFile;
    if (const int failed = replace_file(file, document.str()); failed != 0) {
      throw UsageError("cannot write " + file.string() + ": " + std::strerror(failed), "check the disk");
    }
    exit_status = diagnosis.exit_status();
  }
  DiagnoseOutcome outcome = DiagnoseOutcome::with_status(session.max_across_ranks(exit_status));
  if (leader) outcome.result = std::move(diagnosis);
  outcome.error = std::move(stop_error);
  return outcome;
}

}  // namespace ncclsweep
