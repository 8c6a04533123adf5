#pragma once
// The output flags of the commands that read finished results (report, compare): the
// format, -o and where the link peaks are; and what is settled before they print.
#include <unistd.h>

#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/data_dir.hpp"
#include "report/output_target.hpp"
#include "report/printers.hpp"

namespace ncclsweep {

// --format takes `formats`; the rest is the same for both commands.
inline void add_output_options(CLI::App* command, OutputTarget& target, const std::vector<ReportFormat>& formats,
                               const std::string& help) {
  add_choice(*command, "--format,-f", target.format, kReportFormatNames, formats, help);
  command->add_option("-o,--output", target.path, "Write to this file instead of stdout");
  command->add_option("--systems", target.systems_dir,
                      "Directory of system link peaks (default configs/systems, where the models are found)");
}

// What the CLI settles before an entry point runs: where the link peaks are, whether
// stdout is a terminal.
inline void settle_output(OutputTarget& target, bool& to_terminal) {
  if (target.systems_dir.empty()) target.systems_dir = configs_directory("systems");
  to_terminal = isatty(STDOUT_FILENO) != 0;
}

}  // namespace ncclsweep
