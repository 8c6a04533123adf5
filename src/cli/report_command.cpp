// `ncclsweep report INPUT...`: each input read as what it is (a soak's, a locate's or a
// sweep's results directory, any run, nccl-tests output) and printed in the chosen format;
// several overlaid in one SVG or printed in turn. No MPI, no GPU.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/output_options.hpp"
#include "compare/side_readers.hpp"
#include "core/errors.hpp"
#include "core/name_table.hpp"
#include "locate/locate_results.hpp"
#include "report/node_report.hpp"
#include "report/output_target.hpp"
#include "report/overlap_report.hpp"
#include "report/printers.hpp"
#include "report/prometheus_text.hpp"
#include "report/sweep_report.hpp"
#include "results/results_directory.hpp"
#include "soak/soak_results.hpp"

namespace ncclsweep {
namespace {

// --nodes and --compute: a view printed after a table or md report where the run has
// one (automatic), as the whole report in any format (only), or never (off).
enum class ExtraView { automatic, only, off };
inline constexpr NameTable<ExtraView, 3> kExtraViewNames{
    "view", {{{ExtraView::automatic, "auto"}, {ExtraView::only, "only"}, {ExtraView::off, "off"}}}};

struct ReportFlags {
  std::vector<std::string> inputs;
  OutputTarget output;
  bool to_terminal = false;                 // `out` is a terminal (colour)
  ExtraView nodes = ExtraView::automatic;   // docs/scale.md, "Per-node view"
  double slow_threshold = kSlowShare;
  ExtraView compute = ExtraView::automatic;  // docs/overlap.md
};

// One input's report into `out`: a soak, a locate, a sweep or any run or nccl-tests
// output, in the chosen format.
void print_one_report(const ReportFlags& flags, const std::string& input, std::ostream& out) {
  // A soak's directory: its verdicts, metrics and timeline (docs/soak.md).
  if (std::filesystem::is_directory(input) && soak::is_soak_results(input)) {
    soak::print_soak_report(input, flags.output.format, out);
    return;
  }
  // A locate's directory: its findings and host x host heat map (docs/locate.md).
  if (std::filesystem::is_directory(input) && locate::is_locate_results(input)) {
    locate::print_locate_report(input, flags.output.format, out);
    return;
  }
  const bool is_run = std::filesystem::is_directory(input) &&
                      std::filesystem::exists(std::filesystem::path(input) / "run.json");
  const ReportFormat format = flags.output.format;
  if (flags.nodes == ExtraView::only) {
    if (!is_run) {
      throw UsageError("--nodes only needs an ncclsweep results directory; " + input + " is not one",
                       "give a directory holding run.json (nccl-tests output has no rank -> host map)");
    }
    const NodeReport nodes = build_node_report(read_run_document(input), flags.slow_threshold);
    print_node_report(nodes, format, out);
    return;
  }
  // Prometheus text for dashboards (docs/soak.md, "Metrics"): per measurement.
  if (format == ReportFormat::prom) {
    if (!is_run) {
      throw UsageError("--format prom needs an ncclsweep results directory; " + input + " is not one",
                       "give a run, locate or soak results directory");
    }
    const RunDocument prom_run = read_run_document(input);
    print_run_prometheus(prom_run, out);
    return;
  }
  if (flags.compute == ExtraView::only) {
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
  if (is_run && format != ReportFormat::svg) run = read_run_document(input);  // svg plots it as any run
  // After a table or Markdown report only: CSV and JSON stay one table / document.
  const bool readable = format == ReportFormat::table || format == ReportFormat::md;
  std::optional<NodeReport> nodes;
  if (run && flags.nodes == ExtraView::automatic && readable && node_report_by_default(*run)) {
    nodes = build_node_report(*run, flags.slow_threshold);
  }
  // The under-compute view after a table or Markdown report, as the per-node view.
  std::optional<OverlapReport> overlap;
  if (run && flags.compute == ExtraView::automatic && readable && has_under_compute(*run)) {
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
  const PrintStyle style = style_for(flags.output, side.identity, flags.to_terminal);
  printer(side, style, out);
  print_nodes(out);
}

// Several inputs: one SVG overlays their busbw curves; a table or Markdown report prints
// each in turn under its name. CSV, JSON and Prometheus text stay one document per input.
void print_several_reports(const ReportFlags& flags, std::ostream& out) {
  const ReportFormat format = flags.output.format;
  if (format == ReportFormat::svg) {
    std::vector<Side> sides;
    for (const auto& input : flags.inputs) {
      if (std::filesystem::is_directory(input) && (soak::is_soak_results(input) || locate::is_locate_results(input))) {
        throw UsageError(input + " is a soak or locate directory: its report is its own, not a busbw curve",
                         "overlay run directories and nccl-tests outputs; report a soak or locate alone");
      }
      sides.push_back(load_side(input));
    }
    // A link peak only when every input ran on the same GPU model within one host.
    PrintStyle style = style_for(flags.output, sides.front().identity, flags.to_terminal);
    for (const Side& side : sides) {
      if (side.identity.gpu != sides.front().identity.gpu || side.identity.hosts > 1) style.link_peak_gbps.reset();
    }
    print_sides_svg(sides, style, out);
    return;
  }
  if (format != ReportFormat::table && format != ReportFormat::md) {
    const std::string name(name_of(format));
    throw UsageError("--format " + name + " takes one input, and " + std::to_string(flags.inputs.size()) + " were given",
                     "give one input per --format " + name + " report, or --format svg to overlay them");
  }
  for (std::size_t i = 0; i < flags.inputs.size(); ++i) {
    if (i) out << "\n";
    const bool markdown = format == ReportFormat::md;
    out << (markdown ? "## " : "== ") << flags.inputs[i] << (markdown ? "\n\n" : " ==\n");
    print_one_report(flags, flags.inputs[i], out);
  }
}

// Renders the whole report before writing it (a bad input never leaves half a report in
// -o), into -o or `out`; returns kExitOk. Throws UsageError for bad input.
int run_report_command(const ReportFlags& flags, std::ostream& out) {
  std::ostringstream text;
  if (flags.inputs.size() == 1) {
    print_one_report(flags, flags.inputs.front(), text);
  } else {
    print_several_reports(flags, text);
  }
  write_output(flags.output, out, [&](std::ostream& to) { to << text.str(); });
  return kExitOk;
}

}  // namespace

void add_report_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<ReportFlags>();
  CLI::App* report = add_command(app, chosen, args, "report",
                                 "Print a results directory or nccl-tests output as a table, Markdown, CSV, JSON or SVG",
                                 [](ReportFlags& flags, CommandContext&) {
                                   settle_output(flags.output, flags.to_terminal);
                                   return run_report_command(flags, std::cout);
                                 });
  report->add_option("inputs", args->inputs,
                     "ncclsweep results directory, nccl-tests text output or -J JSON; several: one SVG overlays them "
                     "(--format svg), tables print one after another")
      ->required();
  std::vector<ReportFormat> every_format;  // report prints in each, for some input
  for (const auto& [format, name] : kReportFormatNames.entries()) every_format.push_back(format);
  add_output_options(report, args->output, every_format, "table, md, csv, json, svg or prom (Prometheus text)");
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
}

}  // namespace ncclsweep
