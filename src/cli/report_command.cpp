// `ncclsweep report` and `ncclsweep compare`: their flags; inspect/ reads, judges and
// prints (report_entry, compare_entry). No MPI, no GPU.
#include <unistd.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/data_dir.hpp"
#include "inspect/compare_entry.hpp"
#include "inspect/report_entry.hpp"
#include "report/printers.hpp"

namespace ncclsweep {
namespace {

// --format takes `formats`; the rest is the same for both commands.
void add_output_options(CLI::App* command, OutputTarget& target, const std::vector<ReportFormat>& formats,
                        const std::string& help) {
  add_choice(*command, "--format,-f", target.format, kReportFormatNames, formats, help);
  command->add_option("-o,--output", target.path, "Write to this file instead of stdout");
  command->add_option("--systems", target.systems_dir,
                      "Directory of system link peaks (default configs/systems, where the models are found)");
}

// What the CLI settles before an entry point runs: where the link peaks are, whether
// stdout is a terminal.
void settle_output(OutputTarget& target, bool& to_terminal) {
  if (target.systems_dir.empty()) target.systems_dir = configs_directory("systems");
  to_terminal = isatty(STDOUT_FILENO) != 0;
}

}  // namespace

void add_report_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<ReportFlags>();
  CLI::App* report = app.add_subcommand("report", "Print a results directory or nccl-tests output as a table, Markdown, CSV, JSON or SVG");
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
  report->callback([args, &chosen] {
    chosen = [args](CommandContext&) {
      settle_output(args->output, args->to_terminal);
      return run_report_command(*args, std::cout);
    };
  });
}

void add_compare_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<CompareFlags>();
  CLI::App* compare = app.add_subcommand(
      "compare",
      "Judge NEW against REFERENCE (exit 0 pass, 1 a row below the threshold or the acceptance gate's FAIL, 2 bad input "
      "or nothing comparable, 5 the gate UNRESOLVED)");
  compare->add_option("new", args->new_input, "ncclsweep results directory, nccl-tests text output or -J JSON")->required();
  compare->add_option("reference", args->reference_input, "the same kinds of input")->required();
  compare->add_option("--threshold", args->threshold, "A slower row fails below this share of the reference busbw")
      ->check(finite_range(0.0, 10.0))
      ->capture_default_str();
  compare->add_option("--target", args->target,
                      "Acceptance gate: pass only where the rows pooled reach this share of REFERENCE beyond NEW's noise "
                      "(FAIL below it, UNRESOLVED, exit 5, in between); 0 turns the gate off")
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
  add_output_options(compare, args->output, comparison_formats(), format_choices(comparison_formats()));
  compare->callback([args, &chosen] {
    chosen = [args](CommandContext&) {
      settle_output(args->output, args->to_terminal);
      return run_compare_command(*args, std::cout);
    };
  });
}

}  // namespace ncclsweep
