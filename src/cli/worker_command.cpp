// `ncclsweep worker`: internal; started by `ncclsweep run` for the nccl engine.
#include "cli/command.hpp"
#include "worker/worker_main.hpp"

namespace ncclsweep {

void add_worker_command(CLI::App& app, CommandAction& chosen) {
  CLI::App* worker = app.add_subcommand("worker", "Internal: a measuring process started by `ncclsweep run`");
  worker->group("");  // hidden from --help
  worker->callback([&chosen] { chosen = [](CommandContext&) { return worker_main(); }; });
}

}  // namespace ncclsweep
