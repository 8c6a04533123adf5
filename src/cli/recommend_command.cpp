// `ncclsweep recommend DIR...`: which settings to ship, per collective and size band, from
// sweep results, as a table or as env lines, NCCL tuner rules, a sweep file or JSON
// (docs/recommend.md). No MPI, no GPU.
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/command.hpp"
#include "core/errors.hpp"
#include "recommend/exports.hpp"
#include "recommend/recommendation.hpp"
#include "results/results_directory.hpp"

namespace ncclsweep {
namespace {

struct RecommendArgs {
  std::vector<std::string> inputs;
  std::string format = "table";
  std::string env_style = "plain";
  std::string baseline;
  std::string output;  // empty: stdout
  std::string rank_by{kRankByNames.name(RankBy::busbw)};
};

int run_recommend(const RecommendArgs& args) {
  const EnvStyle style = parse_env_style(args.env_style);
  std::vector<RunInput> runs;
  for (const auto& path : args.inputs) runs.push_back({read_run_document(path), path});
  RecommendOptions options;
  options.baseline = args.baseline;
  options.rank_by = kRankByNames.parse(args.rank_by);
  const Recommendation rec = recommend(runs, options);
  std::string text;
  if (args.format == "table") {
    text = format_recommend_table(rec);
  } else if (args.format == "env") {
    text = format_env(rec, style);
    // The comma list has no room for comments: say on stderr what was held back.
    if (style == EnvStyle::container) {
      for (const auto& e : rec.env) {
        if (!e.exported) std::cerr << "ncclsweep: not exported: " << e.name << "=" << e.value << ": " << e.why << "\n";
      }
    }
  } else if (args.format == "nccl-tuner") {
    text = format_nccl_tuner(rec);
  } else if (args.format == "yaml") {
    text = format_recommend_yaml(rec);
  } else if (args.format == "json") {
    text = format_recommend_json(rec);
  } else {
    throw UsageError("unknown --format '" + args.format + "'", "use table, env, nccl-tuner, yaml or json");
  }
  if (args.output.empty()) {
    std::cout << text << std::flush;
    return kExitOk;
  }
  std::ofstream out(args.output);
  out << text;
  if (!out.flush()) throw UsageError("cannot write " + args.output, "give a writable path to -o");
  return kExitOk;
}

}  // namespace

void add_recommend_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<RecommendArgs>();
  CLI::App* cmd = app.add_subcommand(
      "recommend", "Per collective and size band, the sweep point that beats the baseline beyond noise, and exports");
  cmd->add_option("runs", args->inputs, "results directories (or run.json) of sweep runs of the same collectives")->required();
  cmd->add_option("--format,-f", args->format, "table, env, nccl-tuner, yaml or json")->capture_default_str();
  cmd->add_option("--env-style", args->env_style,
                  "with --format env: plain (KEY=VALUE lines), export (an sbatch export block) or container (one comma list)")
      ->capture_default_str();
  cmd->add_option("--baseline", args->baseline,
                  "the point label to beat (default: the sweep's baseline, else the point without settings, else the first)");
  cmd->add_option("-o,--output", args->output, "write to this file instead of stdout");
  cmd->add_option("--rank-by", args->rank_by,
                  "busbw (idle busbw) or iteration-time-under-compute (the time each call exposes beside the run's "
                  "--with-compute load; ties go to fewer SMs: docs/overlap.md)")
      ->check(CLI::IsMember(kRankByNames.names()))
      ->capture_default_str();
  cmd->callback([args, &chosen] { chosen = [args](CommandContext&) { return run_recommend(*args); }; });
}

}  // namespace ncclsweep
