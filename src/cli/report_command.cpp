// `ncclsweep report`: its flags; inspect/report_entry reads and prints. No MPI, no GPU.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/output_options.hpp"
#include "inspect/report_entry.hpp"
#include "report/printers.hpp"

namespace ncclsweep {

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

}  // namespace ncclsweep
