// `ncclsweep locate`: find the slow hosts, GPUs and links of an allocation in one launch
// (docs/locate.md). Launched like run: mpirun or srun, one rank per GPU.
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "cli/command.hpp"
#include "cli/launch_flags.hpp"
#include "core/table_or_json.hpp"
#include "core/run_options.hpp"
#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "core/output_file.hpp"
#include "core/units.hpp"
#include "locate/locate_plan.hpp"
#include "locate/locate_results.hpp"
#include "locate/locate_text.hpp"
#include "runtime/engine_registry.hpp"
#include "runtime/locate_launch.hpp"
#include "transport/mpi_session.hpp"

namespace ncclsweep {
namespace {

using namespace locate;

struct LocateArgs {
  std::string phases = "host,pairs";
  locate::PairSchedule pairs = locate::PairSchedule::all;
  bool by_rail = false;
  FixedTestFlags tests{"64M,256M", 2, 10};
  int repeats = 3;
  int passes = 1;
  double threshold = 0.9;
  LaunchFlags launch;
  std::string svg;
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
  fill_fixed_tests(options, args.tests);
  options.repeats = args.repeats;
  options.passes = args.passes;
  options.threshold = args.threshold;
  return options;
}

int dry_run(const LocateArgs& args) {
  return run_locate_dry_run(args.hosts, args.ranks_per_host, options_from(args), args.busbw_gbps, args.launch.format,
                            std::cout);
}

int run_located(const LocateArgs& args, CommandContext& context) {
  const auto parse = [&](LocateRequest& request) {
    request.options = options_from(args);
    request.reference_dir = args.reference;
    request.svg_path = args.svg;
  };
  const auto launch = [](MpiSession& session, const LocateRequest& request) { return run_locate_launch(session, request); };
  const auto present = [&](const LocateSummary& summary, TableOrJson format) {
    print_locate_summary(summary, format);
    if (args.svg.empty()) return;
    std::ostringstream svg;
    print_heat_map_svg(svg, summary.layout, summary.verdicts, summary.threshold);
    write_output_file(args.svg, svg.str());
  };
  return launch_and_present<LocateRequest>(context, args.launch, parse, launch, present);
}

}  // namespace

void add_locate_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<LocateArgs>();
  CLI::App* cmd = add_command(
      app, chosen, args, "locate", "Find slow hosts, GPUs and links in one launch (exit 1 when anything is slow; docs/locate.md)",
      [](const LocateArgs& a, CommandContext& context) { return a.dry_run ? dry_run(a) : run_located(a, context); });
  cmd->add_option("--phases", args->phases, "Comma list: host (each host alone), pairs (hosts two by two), rails")
      ->capture_default_str();
  add_choice(*cmd, "--pairs", args->pairs, locate::kPairScheduleNames,
             "all: every pair of hosts (H-1 rounds); ring: each host with its two neighbours");
  cmd->add_flag("--by-rail", args->by_rail, "Also pair local rank i of one host with local rank i of the other (one NIC rail at a time)");
  add_fixed_test_flags(*cmd, args->tests, "Untimed calls per test after each split", "Timed calls per repeat");
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
  add_launch_flags(*cmd, args->launch, "locate",
                   "Testing aid (mpi engine): R:slow=F slows rank R's calls F-fold; link=HOSTA,HOSTB:slow=F slows only "
                   "traffic between two hosts; ranks=R1,R2:slow=F only the exchange of two ranks (a GPU pair)");
  cmd->add_option("--svg", args->svg, "Also write the host x host heat map to this SVG file");
  cmd->add_flag("--dry-run", args->dry_run, "Print the time estimate and exit (needs --hosts and --ranks-per-host)");
  cmd->add_option("--hosts", args->hosts, "--dry-run: hosts of the allocation")->check(finite_range(1, 100000));
  cmd->add_option("--ranks-per-host", args->ranks_per_host, "--dry-run: ranks (GPUs) per host")
      ->check(finite_range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--busbw", args->busbw_gbps, "--dry-run: bus bandwidth the model assumes, GB/s")
      ->check(finite_range(0.001, 100000.0))
      ->capture_default_str();
}

}  // namespace ncclsweep
