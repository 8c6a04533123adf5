// `ncclsweep recommend DIR...`: its flags; inspect/recommend_entry recommends and exports
// (docs/recommend.md). No MPI, no GPU.
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "inspect/recommend_entry.hpp"

namespace ncclsweep {

void add_recommend_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<RecommendFlags>();
  CLI::App* cmd = app.add_subcommand(
      "recommend", "Per collective and size band, the sweep point that beats the baseline beyond noise, and exports");
  cmd->add_option("runs", args->inputs, "results directories (or run.json) of sweep runs of the same collectives")->required();
  add_choice(*cmd, "--format,-f", args->format, kRecommendFormatNames, "table, env, nccl-tuner, yaml or json");
  add_choice(*cmd, "--env-style", args->env_style, kEnvStyleNames,
             "with --format env: plain (KEY=VALUE lines), export (an sbatch export block) or container (one comma list)");
  cmd->add_option("--baseline", args->baseline,
                  "the point label to beat (default: the sweep's baseline, else the point without settings, else the first)");
  cmd->add_option("--job-sizes", args->job_sizes,
                  "the sizes the job sends, in place of the runs' workload: 256M,1G (every collective) or "
                  "all_gather:256M,reduce_scatter:1G; the env export is decided over these alone");
  cmd->add_option("-o,--output", args->output, "write to this file instead of stdout");
  add_choice(*cmd, "--rank-by", args->rank_by, kRankByNames,
             "busbw (idle busbw) or iteration-time-under-compute (the time each call exposes beside the run's "
             "--with-compute load; ties go to fewer SMs: docs/overlap.md)");
  cmd->callback([args, &chosen] {
    chosen = [args](CommandContext&) { return run_recommend_command(*args, std::cout, std::cerr); };
  });
}

}  // namespace ncclsweep
