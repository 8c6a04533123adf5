#include "inspect/compare_entry.hpp"

#include <optional>
#include <ostream>

#include "compare/probe_comparison.hpp"
#include "compare/side_readers.hpp"
#include "core/errors.hpp"
#include "core/units.hpp"
#include "probe/probe_run.hpp"

namespace ncclsweep {
namespace {

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

}  // namespace

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

}  // namespace ncclsweep
