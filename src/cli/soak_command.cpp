// `ncclsweep soak`: hours of collectives cut into windows, judged per host and for the
// world (docs/soak.md). Launched like locate: mpirun or srun, one rank per GPU.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/soak_command.hpp"
#include "runtime/in_process_engine.hpp"
#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "core/list_text.hpp"
#include "core/printf_text.hpp"
#include "core/utc_time.hpp"
#include "locate/host_layout.hpp"
#include "ncclsweep_version.hpp"
#include "results/atomic_file.hpp"
#include "results/results_directory.hpp"
#include "runtime/engine_registry.hpp"
#include "runtime/fault_injection.hpp"
#include "runtime/mpi_session.hpp"
#include "runtime/stop_signals.hpp"
#include "soak/duration.hpp"
#include "soak/soak_metrics.hpp"
#include "soak/soak_results.hpp"

namespace ncclsweep {
namespace {

using namespace soak;

struct SoakArgs {
  std::string duration = "1h";
  std::string window = "30s";
  std::string collectives = "all_reduce,all_gather";
  std::string sizes = "256M";
  int warmup = 5;
  int iters = 10;
  double noise_relative = 0.04;
  double threshold = 0.9;
  int baseline_windows = 3;
  std::string engine;
  std::string format = "table";
  std::string output;
  std::string results_root = "results";
  std::string resume;        // --resume DIR
  std::string metrics_file;  // --metrics-file PATH
  std::string fault;
  bool duration_given = false;
};

SoakOptions options_from(const SoakArgs& args) {
  SoakOptions o;
  o.duration_s = parse_duration(args.duration, "--duration");
  o.window_s = parse_duration(args.window, "--window");
  if (o.window_s > o.duration_s) {
    throw UsageError("--window " + args.window + " is longer than --duration " + args.duration,
                     "give a window shorter than the soak, e.g. --window 30s --duration 2h");
  }
  o.collectives = split_list(args.collectives, "collective");
  for (const std::string& name : o.collectives) (void)collective(name);  // a typo is refused now
  o.sizes = parse_size_list(args.sizes);
  o.warmup = args.warmup;
  o.iters = args.iters;
  o.verdicts.noise_relative = args.noise_relative;
  o.verdicts.threshold = args.threshold;
  o.verdicts.baseline_windows = args.baseline_windows;
  return o;
}

// What every rank needs from rank 0 before the loop: the options (from run.json on a
// --resume) and where the timeline goes on.
struct Plan {
  SoakDocument document;
  std::vector<SoakWindow> windows;  // rank 0: the earlier windows of a --resume
  TimelineStart start;
  std::string dir;
};

nlohmann::json plan_json(const Plan& p) {
  return {{"options", soak::options_json(p.document.options)}, {"fault", p.document.fault},
          {"next_window", p.start.next_window}, {"elapsed_s", p.start.elapsed_s}, {"launch", p.start.launch}};
}

void apply_plan_json(const nlohmann::json& j, Plan& p) {
  p.document.options = soak::options_from(j.at("options"));
  p.document.fault = j.at("fault").get<std::string>();
  p.start = {j.at("next_window").get<int>(), j.at("elapsed_s").get<double>(), j.at("launch").get<int>()};
}

// Rank 0: the new soak's directory, or the earlier one of --resume with its windows.
Plan plan_on_leader(const SoakArgs& args, const std::vector<std::string>& hosts, const std::string& engine_name,
                    CommandContext& context, std::chrono::system_clock::time_point start) {
  Plan p;
  if (!args.resume.empty()) {
    p.dir = args.resume;
    SoakResults earlier = read_soak_results(p.dir);
    if (earlier.document.rank_hosts != hosts) {
      throw UsageError("cannot resume " + p.dir + ": it ran on " + std::to_string(earlier.document.rank_hosts.size()) +
                           " rank(s) on other hosts than this launch's " + std::to_string(hosts.size()),
                       "resume on the same allocation (the same hosts, ranks per host), or start a new soak");
    }
    if (earlier.document.engine != engine_name) {
      throw UsageError("cannot resume " + p.dir + ": it used the " + earlier.document.engine + " engine",
                       "resume with --engine " + earlier.document.engine);
    }
    cut_to_complete_windows(p.dir, earlier);
    p.document = earlier.document;
    p.windows = std::move(earlier.windows);
    if (args.duration_given) p.document.options.duration_s = parse_duration(args.duration, "--duration");
    if (!args.metrics_file.empty()) p.document.metrics_file = args.metrics_file;
    const int launch = p.document.launches.empty() ? 1 : p.document.launches.back().launch + 1;
    p.start = {p.windows.empty() ? 0 : p.windows.back().index + 1, p.windows.empty() ? 0 : p.windows.back().end_s,
               launch};
  } else {
    p.dir = !args.output.empty() ? args.output : default_results_dir(args.results_root, "soak", compact_utc(start)).string();
    create_soak_results(p.dir);
    p.document.options = options_from(args);
    p.document.engine = engine_name;
    p.document.rank_hosts = hosts;
    p.document.fault = args.fault;
    p.document.metrics_file = args.metrics_file;
  }
  p.document.version = std::string(NCCLSWEEP_VERSION) + " (" + NCCLSWEEP_GIT_SHA + ")";
  p.document.command_line = {context.argv, context.argv + context.argc};
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
  return p;
}

void print_window_line(std::FILE* out, const SoakWindow& w, const std::vector<std::string>& hosts) {
  std::string figures;
  for (const WindowFigure& f : w.figures) {
    if (f.scope != Scope::world) continue;
    figures += (figures.empty() ? "" : ", ") + test_name(f.collective, f.bytes) +
               printf_text(" %.3g GB/s", f.busbw_gbps > 0 ? f.busbw_gbps : f.algbw_gbps);
  }
  int clocks = 0, lowest = 0;
  for (const RankSignals& s : w.signals) {
    if (s.gpu.gap != Gap::none) continue;
    lowest = clocks++ == 0 ? s.gpu.sm_mhz : std::min(lowest, s.gpu.sm_mhz);
  }
  const std::string clock_text = clocks > 0 ? printf_text("; lowest SM clock %d MHz", lowest) : "";
  std::fprintf(out, "# window %d: %.1f-%.1f s, %zu host(s), world %s%s\n", w.index, w.start_s, w.end_s, hosts.size(),
               figures.c_str(), clock_text.c_str());
  std::fflush(out);
}

int run_soaked(const SoakArgs& args, CommandContext& context) {
  MpiSession session(&context.argc, &context.argv);
  const bool leader = session.rank() == 0;
  const auto start = std::chrono::system_clock::now();
  const std::string engine_name = args.engine.empty() ? std::string(available_engines().front()) : args.engine;
  FaultInjection fault;
  std::string error;
  const auto refuse_all = [&](const std::string& message) {
    if (session.max_across_ranks(message.empty() ? 0 : 1) == 0) return false;
    if (leader) print_error(message.empty() ? std::string("another rank refused") : message);
    return true;
  };
  try {
    check_engine(engine_name);
    if (args.resume.empty()) (void)options_from(args);
    if (!args.fault.empty()) {
      fault = parse_fault_injection(args.fault);
      if (fault.action != FaultAction::slow) {
        throw UsageError("--inject-fault '" + args.fault + "': soak injects only slow downs",
                         "write RANK:slow=FACTOR[@t=SECONDS|@flap=SECONDS], e.g. 5:slow=4@t=60");
      }
      if (engine_name != "mpi") throw UsageError("--inject-fault slow= is a testing aid of the mpi engine", "add --engine mpi");
      if (fault.rank >= session.size()) {
        throw UsageError("--inject-fault names rank " + std::to_string(fault.rank) + " of a launch of " +
                             std::to_string(session.size()) + " ranks",
                         "name a rank from 0 to " + std::to_string(session.size() - 1));
      }
    }
  } catch (const UsageError& e) {
    error = e.message();
  }
  if (refuse_all(error)) return kExitUsage;

  const std::vector<std::string> hosts = rank_hosts(session);
  const locate::HostLayout layout = locate::layout_from_hosts(hosts);
  Plan plan;
  if (leader) {
    try {
      plan = plan_on_leader(args, hosts, engine_name, context, start);
    } catch (const UsageError& e) {
      error = e.message();
    }
  }
  if (refuse_all(error)) return kExitUsage;
  // The fault of a resumed soak is the one it started with.
  apply_plan_json(nlohmann::json::parse(session.broadcast_string(leader ? plan_json(plan).dump() : "")), plan);
  if (!plan.document.fault.empty()) fault = parse_fault_injection(plan.document.fault);

  std::unique_ptr<Engine> engine;
  try {
    engine = make_in_process_engine(engine_name, session);
  } catch (const UsageError& e) {
    error = e.message();
  }
  if (refuse_all(error)) return kExitUsage;

  const std::vector<std::string> host_list = layout.hosts;
  if (leader) {
    std::printf("# soak: %d host(s), %d rank(s), %s engine, windows of %.0f s until %.0f s%s; results %s\n",
                layout.host_count(), layout.ranks(), engine_name.c_str(), plan.document.options.window_s,
                plan.document.options.duration_s,
                plan.start.next_window > 0 ? (", resuming at window " + std::to_string(plan.start.next_window)).c_str() : "",
                plan.dir.c_str());
    if (fault.action == FaultAction::slow) std::printf("# testing aid: --inject-fault %s\n", plan.document.fault.c_str());
    std::fflush(stdout);
  }
  const StopSignals signals;
  SoakEnd end = SoakEnd::duration;
  const auto write_metrics = [&](const SoakVerdicts& verdicts) {
    if (plan.document.metrics_file.empty()) return;
    write_file_atomically(plan.document.metrics_file, soak_metrics(plan.windows, host_list, verdicts));
  };
  try {
    if (leader) write_soak_document(plan.dir, plan.document, plan.windows);
    const SplitMode split = split_mode(engine_name, *engine);
    engine->connect(split.world_config);
    std::unique_ptr<WindowSampler> sampler = make_engine_sampler(*engine);
    end = run_soak(*engine, session, layout, plan.document.options, *sampler, fault, plan.start,
                   [&] { return signals.received(); },
                   [&](const SoakWindow& window) {
                     if (!leader) return;
                     append_window(plan.dir, window);
                     plan.windows.push_back(window);
                     plan.document.launches.back().end_utc = window.end_utc;
                     write_soak_document(plan.dir, plan.document, plan.windows);
                     write_metrics(judge_document(plan.document, plan.windows));
                     print_window_line(stdout, window, host_list);
                   });
    engine->disconnect();
    engine->settle();
  } catch (...) {
    stop_every_rank(session, std::current_exception());  // rethrows what it does not own
  }

  int status = kExitOk;
  if (leader) {
    try {
      LaunchEntry& launch = plan.document.launches.back();
      launch.end = end == SoakEnd::stopped ? "stopped" : "duration";
      launch.end_utc = iso_utc(std::chrono::system_clock::now());
      write_soak_document(plan.dir, plan.document, plan.windows);
      const SoakVerdicts verdicts = judge_document(plan.document, plan.windows);
      write_metrics(verdicts);
      if (args.format == "json") {
        std::cout << nlohmann::json::parse(std::ifstream(plan.dir + "/run.json")).at("verdicts").dump(2) << "\n";
      } else {
        print_verdicts_table(std::cout, host_list, verdicts);
        if (end == SoakEnd::stopped) std::cout << "# stopped after window " << plan.windows.back().index
                                               << "; continue with --resume " << plan.dir << "\n";
        std::cout << "# results: " << plan.dir << "\n";
      }
      std::cout.flush();
      status = verdicts.anything() ? kExitFindings : kExitOk;
    } catch (const UsageError& e) {
      print_error(e.message());
      status = kExitUsage;
    } catch (const RuntimeFailure& e) {
      print_error(e.message(0, session.host()));
      status = kExitRuntime;
    }
  }
  status = session.max_across_ranks(status);
  // A stop ends with the signal's status, as a stopped run does (the verdicts are kept).
  if (end == SoakEnd::stopped && status != kExitUsage && status != kExitRuntime) {
    return exit_status_for_signal(signals.received() ? signals.received() : 15);
  }
  return status;
}

}  // namespace

void add_soak_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<SoakArgs>();
  CLI::App* cmd = app.add_subcommand(
      "soak", "Collectives for hours in windows: drift, flaps, throttling and outliers per host (exit 1 when found; docs/soak.md)");
  CLI::Option* duration =
      cmd->add_option("--duration", args->duration, "Length of the whole timeline: 90s, 30m, 2h (a --resume may extend it)")
          ->capture_default_str();
  cmd->add_option("--window", args->window, "One window: every test on the world and on each host's ranks, then the signals")
      ->capture_default_str();
  cmd->add_option("--collectives", args->collectives, "Comma list of collectives")->capture_default_str();
  cmd->add_option("--sizes", args->sizes, "Total sizes per test (a few large ones)")->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "Untimed calls per test and communicator before the first window")
      ->check(CLI::Range(0, 1000))
      ->capture_default_str();
  cmd->add_option("--iters", args->iters, "Timed calls per test in each round of a window")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  cmd->add_option("--noise-rel", args->noise_relative,
                  "Relative noise band: moves inside it are never a drift or a flap (compare's default, 0.04)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--threshold", args->threshold, "An outlier window is below this share of its level")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  cmd->add_option("--baseline-windows", args->baseline_windows, "Windows whose median is each series' starting level")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--engine", args->engine, "nccl (GPU; the default when built) or mpi (host buffers)");
  cmd->add_option("--format,-f", args->format, "table or json (stdout)")->check(one_of({"table", "json"}))->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Results directory (default: RESULTS_ROOT/soak/<UTC start>)");
  cmd->add_option("--results-root", args->results_root, "Where default results directories go")->capture_default_str();
  cmd->add_option("--resume", args->resume, "Continue the timeline of this soak's results directory (its options)");
  cmd->add_option("--metrics-file", args->metrics_file,
                  "Prometheus text file rewritten atomically after every window (node_exporter textfile collector)");
  cmd->add_option("--inject-fault", args->fault,
                  "Testing aid (mpi engine): R:slow=F[@t=SECONDS] slows rank R's communicators F-fold from then on; "
                  "R:slow=F@flap=SECONDS alternates normal and slow every SECONDS");
  cmd->callback([args, duration, &chosen] {
    args->duration_given = duration->count() > 0;
    chosen = [args](CommandContext& context) { return run_soaked(*args, context); };
  });
}

}  // namespace ncclsweep
