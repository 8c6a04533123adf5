#pragma once
// Each subcommand registers itself on the CLI11 app and, when chosen, leaves the
// action main runs. An error thrown reaches main, which turns it into a message and an
// exit status (README.md: exit codes); one that every rank agreed on comes back in the
// launch's outcome, and the command prints it once (print_launch_error).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/checked_number.hpp"
#include "core/failure_report.hpp"
#include "core/launch_outcome.hpp"
#include "core/name_table.hpp"
#include "core/suggest.hpp"

namespace ncclsweep {

struct CommandContext {
  int argc;
  char** argv;
  char** envp;
};

using CommandAction = std::function<int(CommandContext&)>;

// The subcommand `name`, whose options the caller adds into `args`: when it is the one
// picked, `chosen` becomes `run(*args, context)`, after CLI11 has parsed every flag.
template <typename Args, typename Run>
CLI::App* add_command(CLI::App& app, CommandAction& chosen, std::shared_ptr<Args> args, const std::string& name,
                      const std::string& description, Run run) {
  CLI::App* command = app.add_subcommand(name, description);
  command->callback([args, run, &chosen] {
    chosen = [args, run](CommandContext& context) { return run(*args, context); };
  });
  return command;
}

// The error that stopped a launch, printed once (rank 0 has it; the other ranks none).
template <typename Result>
void print_launch_error(const LaunchOutcome<Result>& outcome) {
  if (!outcome.error.empty()) print_error(outcome.error);
}

// A CLI11 check that takes one of `names` and suggests the nearest for a typo, as the
// sweep file's checks do (CLI::IsMember only lists the choices).
inline CLI::Validator one_of(std::vector<std::string> names) {
  std::string listed;
  for (const auto& name : names) listed += (listed.empty() ? "" : ", ") + name;
  return CLI::Validator(
      [names = std::move(names), listed](std::string& value) -> std::string {
        if (std::find(names.begin(), names.end(), value) != names.end()) return {};
        return "'" + value + "' is not one of " + listed + did_you_mean(value, names);
      },
      "{" + listed + "}");
}

// A flag that names one of an enum's values, parsed into the enum where CLI11 reads it,
// with one_of's check and suggestion: later layers get the value, never the text.
template <typename Enum, std::size_t N>
CLI::Option* add_choice(CLI::App& app, const std::string& flag, Enum& value, const NameTable<Enum, N>& table,
                        const std::string& help) {
  return app
      .add_option_function<std::string>(
          flag, [&value, &table](const std::string& name) { value = table.parse(name); }, help)
      ->check(one_of(table.names()))
      ->default_str(std::string(table.name(value)));
}

// The same, taking only `allowed` of the table's values (compare's --format: the formats
// a comparison prints in), so the check lists and suggests just those.
template <typename Enum, std::size_t N>
CLI::Option* add_choice(CLI::App& app, const std::string& flag, Enum& value, const NameTable<Enum, N>& table,
                        const std::vector<Enum>& allowed, const std::string& help) {
  std::vector<std::string> names;
  for (const Enum v : allowed) names.emplace_back(table.name(v));
  return app
      .add_option_function<std::string>(
          flag, [&value, &table](const std::string& name) { value = table.parse(name); }, help)
      ->check(one_of(std::move(names)))
      ->default_str(std::string(table.name(value)));
}

// The same for an optional value: unset unless the flag is given.
template <typename Enum, std::size_t N>
CLI::Option* add_choice(CLI::App& app, const std::string& flag, std::optional<Enum>& value,
                        const NameTable<Enum, N>& table, const std::string& help) {
  return app
      .add_option_function<std::string>(
          flag, [&value, &table](const std::string& name) { value = table.parse(name); }, help)
      ->check(one_of(table.names()));
}

// The one range check of every number flag: CLI::Range lets NaN through (no comparison
// with NaN is true) and finite_positive() lets inf through, so a flag like
// --threshold nan would judge nothing. The text must be a finite decimal in [lo, hi].
inline CLI::Validator finite_range(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& value) -> std::string {
        try {
          checked_number(value, lo, hi, "");
        } catch (const UsageError& e) {
          return std::string(e.what()).substr(1);  // what() starts with the empty name
        }
        return {};
      },
      [lo, hi] {
        std::ostringstream text;
        text << "[" << lo << " - " << hi << "]";
        return text.str();
      }());
}

// A finite number above 0 (finite_positive(), without inf).
inline CLI::Validator finite_positive() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const auto number = parse_finite_text(value);
        return number && *number > 0 ? std::string() : "'" + value + "' is not a finite number above 0";
      },
      "POSITIVE");
}

// Each subcommand's file defines one (main adds them all): its flags and its action.
using AddCommand = void(CLI::App& app, CommandAction& chosen);
AddCommand add_run_command, add_worker_command, add_sizes_command, add_plan_command, add_doctor_command,
    add_report_command, add_compare_command, add_recommend_command, add_locate_command, add_probe_command,
    add_diagnose_command, add_soak_command;

}  // namespace ncclsweep
