// `ncclsweep compare NEW REFERENCE`: two sweep results (ours or nccl-tests') judged row
// by row, or two probe runs judged per host and figure, printed in the chosen format. No
// MPI, no GPU.
#include <iostream>
#include <memory>
#include <optional>
#include <ostream>

#include "cli/command.hpp"
#include "cli/output_options.hpp"
#include "compare/comparison.hpp"
#include "compare/probe_comparison.hpp"
#include "compare/side_readers.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "probe/probe_run.hpp"
#include "report/output_target.hpp"

namespace ncclsweep {
namespace {

struct CompareFlags {
  std::string new_input, reference_input;
  double threshold = kDefaultThreshold;
  bool allow_rank_mismatch = false;
  NoiseModel noise;
  std::string min_size = "0";
  double max_band_share = kDefaultMaxBandShare;
  double target = kDefaultTarget;  // the acceptance gate's bar; 0: no gate
  OutputTarget output;
  bool to_terminal = false;  // `out` is a terminal (colour)
};

// Two probe runs (ncclsweep probe): the same verdicts, per host and figure.
int compare_probe_runs(const CompareFlags& flags, std::ostream& out) {
  if (!probe::is_probe_results(flags.new_input) || !probe::is_probe_results(flags.reference_input)) {
    throw UsageError("one side is a probe run and the other is not",
                     "compare a probe run with a probe run (ncclsweep probe), and sweep results with sweep results");
  }
  // Only a table exists for probe figures: a JSON or SVG request must not get one silently.
  if (flags.output.format != ReportFormat::table) {
    throw UsageError("a probe comparison prints only as a table, not --format " + std::string(name_of(flags.output.format)),
                     "drop --format (records.jsonl of each probe run holds the figures as JSON)");
  }
  const auto new_run = probe::read_probe_document(flags.new_input);
  const auto reference = probe::read_probe_document(flags.reference_input);
  const ProbeComparison comparison = compare_probe_records(
      new_run.records, reference.records, {flags.threshold, flags.allow_rank_mismatch, flags.noise, 0});
  write_output(flags.output, out, [&](std::ostream& to) { to << probe_comparison_table(comparison); });
  if (!flags.output.path.empty()) out << comparison.summary() << "\n";
  return comparison.passed() ? kExitOk : kExitRegression;
}

// Prints to `out` (and, with -o, the one-line summary and the gate's line there); returns
// kExitOk, kExitRegression when a row or the acceptance gate fails, kExitUnresolved when
// the gate cannot decide. Throws UsageError for bad input, before any output.
int run_compare_command(const CompareFlags& flags, std::ostream& out) {
  if (probe::is_probe_results(flags.new_input) || probe::is_probe_results(flags.reference_input)) {
    return compare_probe_runs(flags, out);
  }
  const auto printer = comparison_printer(flags.output.format);  // a bad format fails before reading
  const Bytes min_size = parse_size(flags.min_size);               // before reading: a typo is exit 2 at once
  const Side new_side = load_side(flags.new_input);
  const Side reference = load_side(flags.reference_input);
  const std::optional<double> target = flags.target > 0 ? std::optional(flags.target) : std::nullopt;
  const Comparison comparison = compare_sides(
      new_side, reference, {flags.threshold, flags.allow_rank_mismatch, flags.noise, min_size, flags.max_band_share, target});
  const PrintStyle style = style_for(flags.output, new_side.identity, flags.to_terminal);
  write_output(flags.output, out, [&](std::ostream& to) { printer(comparison, style, to); });
  if (!flags.output.path.empty()) {
    out << comparison.summary() << "\n";
    if (comparison.acceptance) out << comparison.acceptance->line() << "\n";
  }
  return comparison.exit_status();
}

}  // namespace

void add_compare_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<CompareFlags>();
  CLI::App* compare = add_command(
      app, chosen, args, "compare",
      "Judge NEW against REFERENCE (exit 0 pass, 1 a row below the threshold or the acceptance gate's FAIL, 2 bad input "
      "or nothing comparable, 5 the gate UNRESOLVED)",
      [](CompareFlags& flags, CommandContext&) {
        settle_output(flags.output, flags.to_terminal);
        return run_compare_command(flags, std::cout);
      });
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
      ->check(finite_range(0.0, 100.0))
      ->capture_default_str();
  add_output_options(compare, args->output, comparison_formats(), format_choices(comparison_formats()));
}

}  // namespace ncclsweep
