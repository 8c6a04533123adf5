#pragma once
// Each subcommand registers itself on the CLI11 app and, when chosen, leaves the
// action main runs. main is the one place that turns errors into messages and exit
// statuses (README.md: exit codes).
#include <CLI/CLI.hpp>

#include <functional>

namespace ncclsweep {

struct CommandContext {
  int argc;
  char** argv;
  char** envp;
};

using CommandAction = std::function<int(CommandContext&)>;

void add_run_command(CLI::App& app, CommandAction& chosen);
void add_worker_command(CLI::App& app, CommandAction& chosen);
void add_sizes_command(CLI::App& app, CommandAction& chosen);
void add_plan_command(CLI::App& app, CommandAction& chosen);
void add_doctor_command(CLI::App& app, CommandAction& chosen);
void add_report_command(CLI::App& app, CommandAction& chosen);
void add_compare_command(CLI::App& app, CommandAction& chosen);
void add_locate_command(CLI::App& app, CommandAction& chosen);

}  // namespace ncclsweep
