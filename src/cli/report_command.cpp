// `ncclsweep report` and `ncclsweep compare`: read results (ours or nccl-tests'),
// print them or judge one against a reference. No MPI, no GPU.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "cli/command.hpp"
#include "cli/data_dir.hpp"
#include "compare/comparison.hpp"
#include "compare/probe_comparison.hpp"
#include "compare/side_readers.hpp"
#include "probe/probe_run.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "locate/locate_results.hpp"
#include "report/node_report.hpp"
#include "report/overlap_report.hpp"
#include "report/printers.hpp"
#include "report/prometheus_text.hpp"
#include "report/sweep_report.hpp"
#include "results/results_directory.hpp"
#include "soak/soak_results.hpp"
#include "report/system_links.hpp"

namespace ncclsweep {
namespace {

struct OutputArgs {
  std::string format = "table";
  std::string output;  // empty: stdout
  std::string systems;  // empty: configs/systems where the data is (cli/data_dir.hpp)
};

// Colour only for a terminal table on a TTY, and never with NO_COLOR set (no-color.org).
bool use_colour(const OutputArgs& args) {
  const char* no_colour = std::getenv("NO_COLOR");
  return args.format == "table" && args.output.empty() && isatty(STDOUT_FILENO) && (!no_colour || !*no_colour);
}

PrintStyle style_for(const OutputArgs& args, const SideIdentity& id) {
  PrintStyle style;
  style.colour = use_colour(args);
  // A link peak bounds busbw only within one node; across nodes the network does.
  if (id.hosts <= 1) {
    const std::string systems = args.systems.empty() ? configs_directory("systems") : args.systems;
    if (const auto link = find_system_link(systems, id.gpu)) {
      style.link_peak_gbps = link->peak_gbps;
      style.link_name = link->name;
    }
  }
  return style;
}

template <typename Print>
void write_output(const OutputArgs& args, Print print) {
  if (args.output.empty()) {
    print(std::cout);
    std::cout.flush();
    return;
  }
  std::ofstream out(args.output);
  if (!out) throw UsageError("cannot write " + args.output, "give a writable path to -o");
  print(out);
  if (!out) throw UsageError("cannot write " + args.output, "give a writable path to -o");
}

void add_output_options(CLI::App* command, OutputArgs& args, const std::string& formats) {
  command->add_option("--format,-f", args.format, formats)->capture_default_str();
  command->add_option("-o,--output", args.output, "Write to this file instead of stdout");
  command->add_option("--systems", args.systems,
                      "Directory of system link peaks (default configs/systems, where the models are found)");
}

struct CompareArgs {
  std::string new_input, reference_input;
  double threshold = kDefaultThreshold;
  bool allow_rank_mismatch = false;
  NoiseModel noise;
  std::string min_size = "0";
  double max_band_share = kDefaultMaxBandShare;
  OutputArgs output;
};

// Two probe runs (ncclsweep probe): the same verdicts, per host and figure.
int run_probe_compare(const CompareArgs& args) {
  if (!probe::is_probe_results(args.new_input) || !probe::is_probe_results(args.reference_input)) {
    throw UsageError("one side is a probe run and the other is not",
                     "compare a probe run with a probe run (ncclsweep probe), and sweep results with sweep results");
  }
  // Only a table exists for probe figures: a JSON or SVG request must not get one silently.
  if (args.output.format != "table") {
    throw UsageError("a probe comparison prints only as a table, not --format " + args.output.format,
                     "drop --format (records.jsonl of each probe run holds the figures as JSON)");
  }
  const auto new_run = probe::read_probe_document(args.new_input);
  const auto reference = probe::read_probe_document(args.reference_input);
  const ProbeComparison comparison = compare_probe_records(
      new_run.records, reference.records, {args.threshold, args.allow_rank_mismatch, args.noise, 0});
  write_output(args.output, [&](std::ostream& out) { out << probe_comparison_table(comparison); });
  if (!args.output.output.empty()) std::cout << comparison.summary() << "\n";
  return comparison.passed() ? kExitOk : kExitRegression;
}

int run_compare(const CompareArgs& args) {
  if (probe::is_probe_results(args.new_input) || probe::is_probe_results(args.reference_input)) {
    return run_probe_compare(args);
  }
  const auto printer = comparison_printer(args.output.format);  // a bad format fails before reading
  const Bytes min_size = parse_size(args.min_size);  // before reading: a typo is exit 2 at once
  const Side new_side = load_side(args.new_input);
  const Side reference = load_side(args.reference_input);
  const Comparison comparison =
      compare_sides(new_side, reference, {args.threshold, args.allow_rank_mismatch, args.noise, min_size, args.max_band_share});
  const PrintStyle style = style_for(args.output, new_side.identity);
  write_output(args.output, [&](std::ostream& out) { printer(comparison, style, out); });
  if (!args.output.output.empty()) std::cout << comparison.summary() << "\n";
  return comparison.passed() ? kExitOk : kExitRegression;
}

// --nodes and --compute: a view printed after a table or md report where the run has
// one (automatic), as the whole report in any format (only), or never (off).
enum class ExtraView { automatic, only, off };
constexpr NameTable<ExtraView, 3> kExtraViewNames{
    "view", {{{ExtraView::automatic, "auto"}, {ExtraView::only, "only"}, {ExtraView::off, "off"}}}};

struct ReportArgs {
  std::vector<std::string> inputs;
  OutputArgs output;
  ExtraView nodes = ExtraView::automatic;  // docs/scale.md, "Per-node view"
  double slow_threshold = kSlowShare;
  ExtraView compute = ExtraView::automatic;  // docs/overlap.md
};

// One input's report into `out`: a soak, a locate, a sweep or any run or nccl-tests
// output, in the chosen format.
void print_one_report(const ReportArgs& args, const std::string& input, std::ostream& out) {
  // A soak's directory: its verdicts, metrics and timeline (docs/soak.md).
  if (std::filesystem::is_directory(input) && soak::is_soak_results(input)) {
    soak::print_soak_report(input, args.output.format, out);
    return;
  }
  // A locate's directory: its findings and host x host heat map (docs/locate.md).
  if (std::filesystem::is_directory(input) && locate::is_locate_results(input)) {
    locate::print_locate_report(input, args.output.format, out);
    return;
  }
  const bool is_run = std::filesystem::is_directory(input) &&
                      std::filesystem::exists(std::filesystem::path(input) / "run.json");
  const auto& format = args.output.format;
  if (args.nodes == ExtraView::only) {
    if (!is_run) {
      throw UsageError("--nodes only needs an ncclsweep results directory; " + input + " is not one",
                       "give a directory holding run.json (nccl-tests output has no rank -> host map)");
    }
    const NodeReport nodes = build_node_report(read_run_document(input), args.slow_threshold);
    print_node_report(nodes, format, out);
    return;
  }
  // Prometheus text for dashboards (docs/soak.md, "Metrics"): per measurement.
  if (format == "prom") {
    if (!is_run) {
      throw UsageError("--format prom needs an ncclsweep results directory; " + input + " is not one",
                       "give a run, locate or soak results directory");
    }
    const RunDocument prom_run = read_run_document(input);
    print_run_prometheus(prom_run, out);
    return;
  }
  if (args.compute == ExtraView::only) {
    if (!is_run) {
      throw UsageError("--compute only needs an ncclsweep results directory; " + input + " is not one",
                       "give a directory holding run.json");
    }
    const RunDocument measured = read_run_document(input);
    if (!has_under_compute(measured)) {
      throw UsageError(input + " holds no measurements under compute", "run with --with-compute gemm:MxNxK:DTYPE");
    }
    const OverlapReport overlap = build_overlap_report(measured);
    print_overlap_report(overlap, format, out);
    return;
  }
  std::optional<RunDocument> run;
  if (is_run && format != "svg") run = read_run_document(input);  // svg plots it as any run
  // After a table or Markdown report only: CSV and JSON stay one table / document.
  std::optional<NodeReport> nodes;
  if (run && args.nodes == ExtraView::automatic && (format == "table" || format == "md") && node_report_by_default(*run)) {
    nodes = build_node_report(*run, args.slow_threshold);
  }
  // The under-compute view after a table or Markdown report, as the per-node view.
  std::optional<OverlapReport> overlap;
  if (run && args.compute == ExtraView::automatic && (format == "table" || format == "md") && has_under_compute(*run)) {
    overlap = build_overlap_report(*run);
  }
  const auto print_nodes = [&](std::ostream& to) {
    if (nodes) print_node_report(*nodes, format, to);
    if (overlap) print_overlap_report(*overlap, format, to);
  };
  // A sweep's results directory: the per-point report.
  if (run && is_sweep_run(*run)) {
    const SweepReport report = build_sweep_report(*run);
    print_sweep_report(report, format, out);
    print_nodes(out);
    return;
  }
  const auto printer = side_printer(format);
  const Side side = load_side(input);
  const PrintStyle style = style_for(args.output, side.identity);
  printer(side, style, out);
  print_nodes(out);
}

// Several inputs: one SVG overlays their busbw curves; a table or Markdown report prints
// each in turn under its name. CSV, JSON and Prometheus text stay one document per input.
void print_several_reports(const ReportArgs& args, std::ostream& out) {
  const std::string& format = args.output.format;
  if (format == "svg") {
    std::vector<Side> sides;
    for (const auto& input : args.inputs) {
      if (std::filesystem::is_directory(input) && (soak::is_soak_results(input) || locate::is_locate_results(input))) {
        throw UsageError(input + " is a soak or locate directory: its report is its own, not a busbw curve",
                         "overlay run directories and nccl-tests outputs; report a soak or locate alone");
      }
      sides.push_back(load_side(input));
    }
    // A link peak only when every input ran on the same GPU model within one host.
    PrintStyle style = style_for(args.output, sides.front().identity);
    for (const Side& side : sides) {
      if (side.identity.gpu != sides.front().identity.gpu || side.identity.hosts > 1) style.link_peak_gbps.reset();
    }
    print_sides_svg(sides, style, out);
    return;
  }
  if (format != "table" && format != "md") {
    if (format != "prom") (void)side_printer(format);  // an unknown format is named as such
    throw UsageError("--format " + format + " takes one input, and " + std::to_string(args.inputs.size()) + " were given",
                     "give one input per --format " + format + " report, or --format svg to overlay them");
  }
  for (std::size_t i = 0; i < args.inputs.size(); ++i) {
    if (i) out << "\n";
    out << (format == "md" ? "## " : "== ") << args.inputs[i] << (format == "md" ? "\n\n" : " ==\n");
    print_one_report(args, args.inputs[i], out);
  }
}

}  // namespace

void add_report_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* report = app.add_subcommand("report", "Print a results directory or nccl-tests output as a table, Markdown, CSV, JSON or SVG");
  report->add_option("inputs", args->inputs,
                     "ncclsweep results directory, nccl-tests text output or -J JSON; several: one SVG overlays them "
                     "(--format svg), tables print one after another")
      ->required();
  add_output_options(report, args->output, "table, md, csv, json, svg or prom (Prometheus text)");
  add_choice(*report, "--nodes", args->nodes, kExtraViewNames,
             "Per-node view and slow groups' hosts: auto (after a table or md report of a run on several hosts), "
             "only (just that view, any format), off");
  add_choice(*report, "--compute", args->compute, kExtraViewNames,
             "The under-compute view (docs/overlap.md): auto (after a table or md report of a run measured "
             "with --with-compute), only (just that view, any format: table, md, csv, json, svg), off");
  report->add_option("--slow-threshold", args->slow_threshold,
                     "A host or group is slow when slower than the others' median by more than this share")
      ->check(finite_range(0.0, 10.0))
      ->capture_default_str();
  report->callback([args, &chosen] {
    chosen = [args](CommandContext&) {
      // Rendered whole before anything is written: a bad input never leaves half a report in -o.
      std::ostringstream text;
      if (args->inputs.size() == 1) {
        print_one_report(*args, args->inputs.front(), text);
      } else {
        print_several_reports(*args, text);
      }
      write_output(args->output, [&](std::ostream& out) { out << text.str(); });
      return kExitOk;
    };
  });
}

void add_compare_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* compare = app.add_subcommand(
      "compare", "Judge NEW against REFERENCE (exit 0 pass, 1 a row below the threshold, 2 bad input or nothing comparable)");
  compare->add_option("new", args->new_input, "ncclsweep results directory, nccl-tests text output or -J JSON")->required();
  compare->add_option("reference", args->reference_input, "the same kinds of input")->required();
  compare->add_option("--threshold", args->threshold, "A slower row fails below this share of the reference busbw")
      ->check(finite_range(0.0, 10.0))
      ->capture_default_str();
  compare->add_flag("--allow-rank-mismatch", args->allow_rank_mismatch, "Compare sides with different rank counts anyway");
  compare->add_option("--noise-rel", args->noise.relative,
                      "Relative half-width of a single figure's noise band (0.03 = +-3%)")
      ->check(finite_range(0.0, 1.0))
      ->capture_default_str();
  compare->add_option("--noise-us", args->noise.time_us,
                      "Launch-to-launch time jitter of a single figure, in us: widens the band where the time is small")
      ->check(finite_range(0.0, 1e6))
      ->capture_default_str();
  compare->add_option("--min-size", args->min_size, "Judge only sizes at or above this (e.g. 16M): the bandwidth-bound ones")
      ->capture_default_str();
  compare->add_option("--max-band", args->max_band_share,
                      "A row whose noise band exceeds this share of its busbw is unresolved, not judged same")
      ->check(CLI::Range(0.0, 100.0))
      ->capture_default_str();
  add_output_options(compare, args->output, "table, md, json or svg");
  compare->callback([args, &chosen] { chosen = [args](CommandContext&) { return run_compare(*args); }; });
}

}  // namespace ncclsweep
