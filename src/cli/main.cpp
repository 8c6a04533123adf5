// ncclsweep: measure NCCL collectives at the sizes a workload uses, sweep NCCL
// settings, and judge a cluster against a reference.
#include <cstdio>
#include <string>

#include "cli/command.hpp"
#include "cli/soak_command.hpp"
#include "core/errors.hpp"
#include "ncclsweep_version.hpp"
#include "runtime/engine_registry.hpp"
#include "runtime/uncaught_failure.hpp"

int main(int argc, char** argv, char** envp) {
  using namespace ncclsweep;
  CLI::App app{"ncclsweep " NCCLSWEEP_VERSION ": NCCL collective benchmarks and setting sweeps"};
  app.require_subcommand(1);
  std::string engines;
  for (const auto engine : available_engines()) engines += " " + std::string(engine);
  app.set_version_flag("--version", NCCLSWEEP_VERSION " (" NCCLSWEEP_GIT_SHA ") engines:" + engines);
  CommandAction chosen;
  add_run_command(app, chosen);
  add_worker_command(app, chosen);
  add_sizes_command(app, chosen);
  add_plan_command(app, chosen);
  add_doctor_command(app, chosen);
  add_report_command(app, chosen);
  add_compare_command(app, chosen);
  add_recommend_command(app, chosen);
  add_locate_command(app, chosen);
  add_soak_command(app, chosen);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int status = app.exit(e);  // prints help or the parse error
    return status == 0 ? kExitOk : kExitUsage;
  }
  CommandContext context{argc, argv, envp};
  try {
    return chosen(context);
  } catch (...) {
    // Every failure, whatever its type, ends here: one message, one exit status, and
    // every MPI rank ended with it (runtime/uncaught_failure.hpp).
    return exit_for_uncaught(std::current_exception());
  }
}
