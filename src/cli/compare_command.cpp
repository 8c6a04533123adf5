// `ncclsweep compare`: its flags; inspect/compare_entry reads both sides, judges and
// prints. No MPI, no GPU.
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "cli/output_options.hpp"
#include "inspect/compare_entry.hpp"

namespace ncclsweep {

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
