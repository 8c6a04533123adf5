// `ncclsweep soak`: hours of collectives cut into windows, judged per host and for the
// world (docs/soak.md). Launched like locate: mpirun or srun, one rank per GPU.
#include <memory>
#include <string>

#include "cli/launch_flags.hpp"
#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "core/list_text.hpp"
#include "core/table_or_json.hpp"
#include "core/units.hpp"
#include "runtime/engine_registry.hpp"
#include "transport/mpi_session.hpp"
#include "soak/duration.hpp"
#include "soak/soak_launch.hpp"

namespace ncclsweep {
namespace {

using namespace soak;

struct SoakArgs {
  std::string duration = "1h";
  std::string window = "30s";
  std::string collectives = "all_reduce,all_gather";
  FixedTestFlags tests{"256M", 5, 10};
  double noise_relative = 0.04;
  double threshold = 0.9;
  int baseline_windows = 3;
  LaunchFlags launch;
  std::string resume;        // --resume DIR
  std::string metrics_file;  // --metrics-file PATH
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
  o.collectives.clear();
  for (const std::string& name : split_list(args.collectives, "collective")) o.collectives.push_back(&collective(name));
  fill_fixed_tests(o, args.tests);
  o.verdicts.noise_relative = args.noise_relative;
  o.verdicts.threshold = args.threshold;
  o.verdicts.baseline_windows = args.baseline_windows;
  return o;
}

int run_soaked(const SoakArgs& args, CommandContext& context) {
  const auto parse = [&](SoakRequest& request) {
    // A resume takes its options from run.json; --duration alone may lengthen it.
    if (args.resume.empty()) request.options = options_from(args);
    if (!args.resume.empty() && args.duration_given) request.duration_s = parse_duration(args.duration, "--duration");
    request.resume_dir = args.resume;
    request.metrics_file = args.metrics_file;
  };
  const auto launch = [](MpiSession& session, const SoakRequest& request) { return run_soak_launch(session, request); };
  return launch_and_present<SoakRequest>(context, args.launch, parse, launch, print_soak_summary);
}

}  // namespace

void add_soak_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<SoakArgs>();
  CLI::App* cmd = add_command(
      app, chosen, args, "soak",
      "Collectives for hours in windows: drift, flaps, throttling and outliers per host (exit 1 when found; docs/soak.md)",
      run_soaked);
  cmd->add_option("--duration", args->duration, "Length of the whole timeline: 90s, 30m, 2h (a --resume may extend it)")
      ->each([args](const std::string&) { args->duration_given = true; })
      ->capture_default_str();
  cmd->add_option("--window", args->window, "One window: every test on the world and on each host's ranks, then the signals")
      ->capture_default_str();
  cmd->add_option("--collectives", args->collectives, "Comma list of collectives")->capture_default_str();
  add_fixed_test_flags(*cmd, args->tests, "Untimed calls per test and communicator before the first window",
                       "Timed calls per test in each round of a window");
  cmd->add_option("--noise-rel", args->noise_relative,
                  "Relative noise band: moves inside it are never a drift or a flap (compare's default, 0.04)")
      ->check(finite_range(0.0, 1.0))
      ->capture_default_str();
  cmd->add_option("--threshold", args->threshold, "An outlier window is below this share of its level")
      ->check(finite_range(0.01, 1.0))
      ->capture_default_str();
  cmd->add_option("--baseline-windows", args->baseline_windows, "Windows whose median is each series' starting level")
      ->check(finite_range(1, 1000))
      ->capture_default_str();
  add_launch_flags(*cmd, args->launch, "soak",
                   "Testing aid (mpi engine): R:slow=F[@t=SECONDS] slows rank R's communicators F-fold from then on; "
                   "R:slow=F@flap=SECONDS alternates normal and slow every SECONDS");
  cmd->add_option("--resume", args->resume, "Continue the timeline of this soak's results directory (its options)");
  cmd->add_option("--metrics-file", args->metrics_file,
                  "Prometheus text file rewritten atomically after every window (node_exporter textfile collector)");
}

}  // namespace ncclsweep
