// ncclsweep: measure NCCL collectives at the sizes a workload uses, sweep NCCL
// settings, and judge a cluster against a reference.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/command.hpp"
#include "core/environment.hpp"
#include "core/errors.hpp"
#include "core/failure_report.hpp"
#include "core/input_file.hpp"
#include "core/standard_output.hpp"
#include "core/units.hpp"
#include "ncclsweep_version.hpp"
#include "runtime/engine_registry.hpp"
#include "runtime/uncaught_failure.hpp"

namespace {

// No option takes an empty value: `-o ""` or `--resume ""` would otherwise mean "the
// default directory", and an empty path or name is never what was meant.
void refuse_empty_values(CLI::App& app) {
  for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* option : command->get_options([](CLI::Option* o) { return o->get_type_size_min() > 0; })) {
      option->check(CLI::Validator([](std::string& value) { return value.empty() ? "an empty value is not allowed" : ""; },
                                   ""));
    }
  }
}

// "unknown subcommand 'rnu'; ncclsweep has run, plan, ...; did you mean 'run'?", or ""
// when the first argument is an option or a subcommand.
std::string unknown_subcommand_message(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return "";
  const std::string word = argv[1];
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands([](CLI::App* c) { return !c->get_group().empty(); })) {
    if (command->get_name() == word) return "";
    names.push_back(command->get_name());
  }
  std::string listed;
  for (const auto& name : names) listed += (listed.empty() ? "" : ", ") + name;
  return ncclsweep::message_with_fix("unknown subcommand '" + word + "'" + ncclsweep::did_you_mean(word, names),
                                     "use one of " + listed + " (ncclsweep --help lists them)");
}

}  // namespace

int main(int argc, char** argv, char** envp) {
  using namespace ncclsweep;
  // Before anything can call setenv() (MPI_Init does): core/environment.hpp says why.
  OwnedEnvironment environment(envp);
  if (!standard_output_open()) {
    print_error(message_with_fix("standard output is closed, so what ncclsweep prints would be lost",
                                 "give it somewhere to go: > FILE, or > /dev/null to discard it"));
    return kExitRuntime;
  }
  CheckedStandardOutput standard_output;
  const auto output_checked = [&standard_output](int status) {
    if (const std::string lost = standard_output.failure(); !lost.empty()) {
      print_error("writing standard output failed: " + lost + "; what ncclsweep printed there is lost" +
                  (status == kExitOk ? "" : " (the command had already failed: exit " + std::to_string(status) + ")"));
      return std::max(status, static_cast<int>(kExitRuntime));
    }
    return status;
  };
  CLI::App app{"ncclsweep " NCCLSWEEP_VERSION ": NCCL collective benchmarks and setting sweeps"};
  app.require_subcommand(1);
  std::string engines;
  for (const auto engine : available_engines()) engines += " " + std::string(engine);
  app.set_version_flag("--version", NCCLSWEEP_VERSION " (" NCCLSWEEP_GIT_SHA ") engines:" + engines);
  CommandAction chosen;
  for (AddCommand* add : {add_run_command, add_diagnose_command, add_worker_command, add_sizes_command,
                          add_plan_command, add_doctor_command, add_probe_command, add_report_command,
                          add_compare_command, add_recommend_command, add_locate_command, add_soak_command}) {
    add(app, chosen);
  }
  // Raises every input's size cap (core/input_file.hpp) for a real input that large; given
  // before or after the subcommand. Each rank parses its own argv, so it reaches them all.
  std::string max_input_size;
  app.add_option("--max-input-size", max_input_size,
                 "Read inputs up to SIZE (e.g. 8G), beyond the caps of 16 MiB per sweep file, 1 GiB per results "
                 "file and 2 GiB per log or trace (inflated)");
  // Subcommands take their fallthrough when they are added: set it on each, so the flag
  // also works after the subcommand (ncclsweep compare A B --max-input-size 8G).
  for (CLI::App* command : app.get_subcommands([](CLI::App*) { return true; })) command->fallthrough();
  refuse_empty_values(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (const std::string unknown = unknown_subcommand_message(app, argc, argv); !unknown.empty()) {
      ncclsweep::print_error(unknown);
      return kExitUsage;
    }
    if (e.get_exit_code() == 0) return output_checked(app.exit(e));  // --help, --version
    // A flag refused by its check: the one error spelling, with a fix line as every
    // refusal has, pointing at the help of the command it belongs to.
    std::string command = "ncclsweep";
    if (argc > 1 && argv[1][0] != '-') command += " " + std::string(argv[1]);
    ncclsweep::print_error(
        message_with_fix(e.what(), command + " --help lists every option and the values it takes"));
    return kExitUsage;
  }
  if (!max_input_size.empty()) {
    try {
      (void)parse_size(max_input_size);
    } catch (const UsageError& e) {
      print_error("--max-input-size: " + e.message());
      return kExitUsage;
    }
    setenv(kMaxInputSizeVariable, max_input_size.c_str(), 1);
  }
  CommandContext context{argc, argv, environment.envp()};
  try {
    return output_checked(chosen(context));
  } catch (...) {
    // Every failure, whatever its type, ends here: one message, one exit status, and
    // every MPI rank ended with it (runtime/uncaught_failure.hpp).
    return output_checked(exit_for_uncaught(std::current_exception()));
  }
}
