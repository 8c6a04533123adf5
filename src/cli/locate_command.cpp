// `ncclsweep locate`: find the slow hosts, GPUs and links of an allocation in one launch
// (docs/locate.md). Launched like run: mpirun or srun, one rank per GPU.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "cli/in_process_engine.hpp"
#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "core/utc_time.hpp"
#include "engine/mpi/mpi_engine.hpp"
#include "locate/locate_reference.hpp"
#include "locate/locate_results.hpp"
#include "ncclsweep_version.hpp"
#include "results/results_directory.hpp"
#include "runtime/engine_registry.hpp"
#include "runtime/mpi_session.hpp"
#if NCCLSWEEP_HAVE_NCCL
#include "engine/nccl/nccl_engine.hpp"
#endif

namespace ncclsweep {
namespace {

using namespace locate;

struct LocateArgs {
  std::string phases = "host,pairs";
  std::string pairs = "all";
  bool by_rail = false;
  std::string sizes = "64M,256M";
  int warmup = 2;
  int iters = 10;
  int repeats = 3;
  int passes = 1;
  double threshold = 0.9;
  std::string engine;
  std::string format = "table";
  std::string output;
  std::string results_root = "results";
  std::string svg;
  std::string fault;
  std::string reference;  // --reference DIR
  bool dry_run = false;
  int hosts = 0;           // --dry-run: the allocation to estimate
  int ranks_per_host = 8;
  double busbw_gbps = 100;  // --dry-run: the model's bus bandwidth
};

LocateOptions options_from(const LocateArgs& args) {
  LocateOptions options;
  set_phases(options, args.phases);
  options.by_rail = options.by_rail || args.by_rail;
  if (options.by_rail) options.pairs_phase = true;
  options.pairs = args.pairs;
  options.sizes = parse_size_list(args.sizes);
  options.warmup = args.warmup;
  options.iters = args.iters;
  options.repeats = args.repeats;
  options.passes = args.passes;
  options.threshold = args.threshold;
  return options;
}

std::string seconds_text(double s) {
  char text[32];
  if (s < 120) {
    std::snprintf(text, sizeof text, "%.3g s", s);
  } else if (s < 2 * 3600) {
    std::snprintf(text, sizeof text, "%.1f min", s / 60);
  } else if (s < 2 * 86400) {
    std::snprintf(text, sizeof text, "%.1f h", s / 3600);
  } else {
    std::snprintf(text, sizeof text, "%.3g days", s / 86400);
  }
  return text;
}

void print_estimate(std::FILE* out, int hosts, int ranks_per_host, const LocateOptions& options, double busbw_gbps) {
  // Counted, not built: the largest allocation the options allow stays a few MiB.
  const LocateEstimate e = estimate_locate(std::vector<int>(static_cast<std::size_t>(hosts), ranks_per_host), options,
                                           busbw_gbps * 1e9);
  std::fprintf(out,
               "# locate estimate: %d host(s) x %d rank(s): %d split(s), %d pairs round(s), %lld measurement(s)\n"
               "#   launch %s, splits %s, collectives %s, coordination %s; per pairs round %s; total %s\n"
               "#   (model: %.0f GB/s bus bandwidth and the per-rank costs of docs/scale.md)\n",
               hosts, ranks_per_host, e.steps,
               e.rounds, e.measurements, seconds_text(e.launch_s).c_str(), seconds_text(e.splits_s).c_str(),
               seconds_text(e.collectives_s).c_str(), seconds_text(e.coordination_s).c_str(),
               seconds_text(e.per_round_s).c_str(), seconds_text(e.total_s()).c_str(), busbw_gbps);
}

int dry_run(const LocateArgs& args) {
  if (args.hosts < 1 || args.ranks_per_host < 1) {
    throw UsageError("locate --dry-run needs the allocation: --hosts N and --ranks-per-host G",
                     "e.g. ncclsweep locate --dry-run --hosts 64 --ranks-per-host 8");
  }
  print_estimate(stdout, args.hosts, args.ranks_per_host, options_from(args), args.busbw_gbps);
  return kExitOk;
}

// The nccl engine needs a GPU per rank: two ranks on one GPU measure nothing of the GPU.
std::string shared_gpu_reason(MpiSession& session, const Engine& engine) {
  if (engine.name() != "nccl") return "";
  char name[256] = {};
  gethostname(name, sizeof name - 1);
  const std::vector<std::string> keys = session.gather(std::string(name) + " " + engine.device().pci_bus_id);
  std::string reason;
  if (session.rank() == 0) {
    const std::set<std::string> gpus(keys.begin(), keys.end());
    if (gpus.size() < 2) {
      reason = "locate needs at least two GPUs; the " + std::to_string(keys.size()) + " ranks share " +
               std::to_string(gpus.size()) + " GPU";
    } else if (gpus.size() < keys.size()) {
      reason = "locate needs one GPU per rank; " + std::to_string(keys.size()) + " ranks share " +
               std::to_string(gpus.size()) + " GPUs";
    }
  }
  return session.broadcast_string(reason);
}

// Ends with the same status on every rank: all stop together on bad input.
struct Refusal {
  std::string message;
  std::string fix;
};

int run_located(const LocateArgs& args, CommandContext& context) {
  MpiSession session(&context.argc, &context.argv);
  const bool leader = session.rank() == 0;
  const auto start = std::chrono::system_clock::now();
  LocateOptions options;
  SlowFault fault;
  std::string engine_name = args.engine.empty() ? std::string(available_engines().front()) : args.engine;
  std::string error;
  try {
    options = options_from(args);
    check_engine(engine_name);
    if (!args.fault.empty()) {
      fault = parse_slow_fault(args.fault);
      if (engine_name != "mpi") {
        throw UsageError("--inject-fault slow= is a testing aid of the mpi engine", "add --engine mpi");
      }
    }
    if (session.size() < 2) {
      throw UsageError("locate needs at least two ranks on two GPUs (it measures GPUs and hosts against each other); "
                       "this launch has 1 rank",
                       "launch it with mpirun -np N or srun, one rank per GPU, N >= 2");
    }
  } catch (const UsageError& e) {
    error = e.message();
  }
  const auto refuse_all = [&](const std::string& message) {
    if (session.max_across_ranks(message.empty() ? 0 : 1) == 0) return false;
    if (leader) print_error(message.empty() ? std::string("another rank refused") : message);
    return true;
  };
  if (refuse_all(error)) return kExitUsage;

  const std::vector<std::string> hosts = rank_hosts(session, session.host());
  const HostLayout layout = layout_from_hosts(hosts);
  // A fault aimed at a rank or host this launch lacks would slow nothing and pass.
  if (fault.active()) {
    const int ranks = session.size();
    const auto has_host = [&hosts](const std::string& h) { return std::find(hosts.begin(), hosts.end(), h) != hosts.end(); };
    std::string missing;
    if (fault.rank >= ranks) missing = "rank " + std::to_string(fault.rank);
    for (const int r : fault.pair) {
      if (r >= ranks) missing = "rank " + std::to_string(r);
    }
    for (const std::string* h : {&fault.host_a, &fault.host_b}) {
      if (!h->empty() && !has_host(*h)) missing = "host " + *h;
    }
    if (!missing.empty()) {
      error = UsageError("--inject-fault '" + args.fault + "' names " + missing + ", which this launch does not have (" +
                             std::to_string(ranks) + " ranks on " + std::to_string(layout.host_count()) + " host(s))",
                         "name a rank below " + std::to_string(ranks) + " or a host of the launch")
                  .message();
    }
  }
  if (refuse_all(error)) return kExitUsage;
  // --reference: read on rank 0, which judges; every rank stops on a bad one before
  // anything is measured.
  std::optional<ReferenceFigures> reference;
  if (leader && !args.reference.empty()) {
    try {
      reference = load_reference(args.reference, layout, options, engine_name);
    } catch (const UsageError& e) {
      error = e.message();
    }
  }
  if (refuse_all(error)) return kExitUsage;

  std::unique_ptr<Engine> engine;
  try {
    engine = make_in_process_engine(engine_name, session);
  } catch (const UsageError& e) {
    error = e.message();
  }
  if (refuse_all(error)) return kExitUsage;
  if (refuse_all(shared_gpu_reason(session, *engine))) return kExitUsage;

  std::vector<std::string> notes;
  if (options.pairs_phase && layout.host_count() < 2) {
    notes.push_back("one host only: the pairs phase has no pairs (give each GPU its own host name with "
                    "NCCLSWEEP_FAKE_HOSTNAME to pair GPUs instead)");
  }
  const bool host_measured =
      std::any_of(layout.host_ranks.begin(), layout.host_ranks.end(), [](const auto& r) { return r.size() >= 2; });
  if (options.host_phase && !host_measured) notes.push_back("one rank per host: the host phase has nothing to measure");
  std::FILE* progress = args.format == "json" ? stderr : stdout;
  if (leader) {
    std::fprintf(progress, "# locate: %d host(s), %d rank(s), %s engine, threshold %.2f of %s\n",
                 layout.host_count(), layout.ranks(), engine_name.c_str(), options.threshold,
                 reference ? ("the reference " + reference->source).c_str() : "the median of the hosts");
    for (const std::string& note : notes) std::fprintf(progress, "# note: %s\n", note.c_str());
    if (fault.active()) std::fprintf(progress, "# testing aid: --inject-fault %s\n", args.fault.c_str());
    std::fflush(progress);
  }

  const SplitMode split = split_mode(engine_name, *engine);
  if (leader) std::fprintf(progress, "# splits: %s\n", split.description.c_str());
  LocateRun run;
  try {
    engine->connect(split.world_config);
    run = run_locate(*engine, session, layout, options, fault, [&](const StepTime& t, int index, int total) {
      if (!leader) return;
      const std::string round = t.round > 0 ? " round " + std::to_string(t.round) : "";
      const std::string pass = options.passes > 1 ? " (pass " + std::to_string(t.pass) + ")" : "";
      std::fprintf(progress, "# step %d/%d: %s%s%s took %s\n", index + 1, total, t.phase.c_str(), round.c_str(),
                   pass.c_str(), seconds_text(t.seconds).c_str());
      std::fflush(progress);
    });
    engine->disconnect();
    engine->settle();
  } catch (...) {
    stop_every_rank(session, std::current_exception());  // rethrows what it does not own
  }

  int status = kExitOk;
  if (leader) {
    try {
      const Verdicts verdicts = judge(layout, run.measurements, options.threshold, reference ? &*reference : nullptr);
      const std::string dir =
          !args.output.empty() ? args.output
                               : default_results_dir(args.results_root, "locate", compact_utc(start)).string();
      LocateDocument document;
      document.version = std::string(NCCLSWEEP_VERSION) + " (" + NCCLSWEEP_GIT_SHA + ")";
      document.engine = engine_name;
      document.start_time = iso_utc(start);
      document.end_time = iso_utc(std::chrono::system_clock::now());
      document.command_line = {context.argv, context.argv + context.argc};
      document.rank_hosts = hosts;
      document.options = options;
      document.fault = args.fault;
      document.reference = reference;
      document.split_mode = split.description;
      document.steps = run.steps;
      document.notes = notes;
      write_locate_results(dir, document, run.measurements, verdicts);
      if (!args.svg.empty()) {
        std::ofstream svg(args.svg);
        print_heat_map_svg(svg, layout, verdicts, options.threshold);
        if (!svg) throw UsageError("cannot write " + args.svg, "give a writable path to --svg");
      }
      std::vector<double> rounds;
      for (const StepTime& t : run.steps) {
        if (t.phase == "pairs") rounds.push_back(t.seconds);
      }
      if (args.format == "json") {
        nlohmann::json out = verdicts_json(layout, verdicts, options.threshold, reference ? reference->source : "");
        out["results"] = dir;
        out["steps"] = nlohmann::json::array();
        for (const StepTime& t : run.steps) {
          out["steps"].push_back({{"phase", t.phase}, {"round", t.round}, {"pass", t.pass}, {"seconds", t.seconds}});
        }
        std::cout << out.dump(2) << "\n";
      } else {
        if (!rounds.empty()) {
          std::sort(rounds.begin(), rounds.end());
          const std::size_t per_pass = rounds.size() / static_cast<std::size_t>(options.passes);
          std::printf("# pairs: %zu round(s)%s, %s per round (median)\n", per_pass,
                      options.passes > 1 ? (" x " + std::to_string(options.passes) + " passes").c_str() : "",
                      seconds_text(rounds[rounds.size() / 2]).c_str());
        }
        std::fflush(stdout);
        print_findings_table(std::cout, layout, verdicts, false);
        std::cout << "# results: " << dir << "\n";
      }
      std::cout.flush();
      status = verdicts.anything_slow() ? kExitFindings : kExitOk;
    } catch (const UsageError& e) {
      print_error(e.message());
      status = kExitUsage;
    }
  }
  // Every rank exits with rank 0's verdict, so the launcher's status is it.
  return session.max_across_ranks(status);
}

}  // namespace

void add_locate_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<LocateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "locate", "Find slow hosts, GPUs and links in one launch (exit 1 when anything is slow; docs/locate.md)");
  cmd->add_option("--phases", args->phases, "Comma list: host (each host alone), pairs (hosts two by two), rails")
      ->capture_default_str();
  cmd->add_option("--pairs", args->pairs, "all: every pair of hosts (H-1 rounds); ring: each host with its two neighbours")
      ->check(one_of({"all", "ring"}))
      ->capture_default_str();
  cmd->add_flag("--by-rail", args->by_rail, "Also pair local rank i of one host with local rank i of the other (one NIC rail at a time)");
  cmd->add_option("--sizes", args->sizes, "Total sizes per test (a few large ones)")->capture_default_str();
  cmd->add_option("--warmup", args->warmup, "Untimed calls per test after each split")->check(finite_range(0, 1000))->capture_default_str();
  cmd->add_option("--iters", args->iters, "Timed calls per repeat")->check(finite_range(1, 100000))->capture_default_str();
  cmd->add_option("--repeats", args->repeats, "Repeats per test and pass; their spread is the noise band")
      ->check(finite_range(1, 100))
      ->capture_default_str();
  cmd->add_option("--passes", args->passes,
                  "Run the whole schedule this many times (each split anew), so every test's repeats are spread "
                  "over the launch and a slow spell touches all groups alike")
      ->check(finite_range(1, 100))
      ->capture_default_str();
  cmd->add_option("--reference", args->reference,
                  "Judge against an earlier locate or run results directory instead of the median of this launch");
  cmd->add_option("--threshold", args->threshold, "Slow below this share of the reference (the median of hosts)")
      ->check(finite_range(0.01, 1.0))
      ->capture_default_str();
  cmd->add_option("--engine", args->engine, "nccl (GPU; the default when built) or mpi (host buffers)");
  cmd->add_option("--format,-f", args->format, "table or json (stdout)")
      ->check(one_of({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", args->output, "Results directory (default: RESULTS_ROOT/locate/<UTC start>)");
  cmd->add_option("--results-root", args->results_root, "Where default results directories go")->capture_default_str();
  cmd->add_option("--svg", args->svg, "Also write the host x host heat map to this SVG file");
  cmd->add_option("--inject-fault", args->fault,
                  "Testing aid (mpi engine): R:slow=F slows rank R's calls F-fold; link=HOSTA,HOSTB:slow=F slows only "
                  "traffic between two hosts; ranks=R1,R2:slow=F only the exchange of two ranks (a GPU pair)");
  cmd->add_flag("--dry-run", args->dry_run, "Print the time estimate and exit (needs --hosts and --ranks-per-host)");
  cmd->add_option("--hosts", args->hosts, "--dry-run: hosts of the allocation")->check(finite_range(1, 100000));
  cmd->add_option("--ranks-per-host", args->ranks_per_host, "--dry-run: ranks (GPUs) per host")
      ->check(finite_range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--busbw", args->busbw_gbps, "--dry-run: bus bandwidth the model assumes, GB/s")
      ->check(finite_range(0.001, 100000.0))
      ->capture_default_str();
  cmd->callback([args, &chosen] {
    chosen = [args](CommandContext& context) { return args->dry_run ? dry_run(*args) : run_located(*args, context); };
  });
}

}  // namespace ncclsweep
