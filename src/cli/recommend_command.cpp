// `ncclsweep recommend DIR...`: the winners of sweep results per collective and size
// band, printed as a table or exported as env lines, NCCL tuner rules, a sweep file or
// JSON (docs/recommend.md). No MPI, no GPU.
#include <iostream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "core/errors.hpp"
#include "core/name_table.hpp"
#include "core/output_file.hpp"
#include "recommend/exports.hpp"
#include "recommend/recommendation.hpp"
#include "results/results_directory.hpp"

namespace ncclsweep {
namespace {

enum class RecommendFormat { table, env, nccl_tuner, yaml, json };
inline constexpr NameTable<RecommendFormat, 5> kRecommendFormatNames{
    "--format",
    {{{RecommendFormat::table, "table"},
      {RecommendFormat::env, "env"},
      {RecommendFormat::nccl_tuner, "nccl-tuner"},
      {RecommendFormat::yaml, "yaml"},
      {RecommendFormat::json, "json"}}}};

struct RecommendFlags {
  std::vector<std::string> inputs;
  RecommendFormat format = RecommendFormat::table;
  EnvStyle env_style = EnvStyle::plain;
  std::string baseline;  // a point label; empty: the run's
  RankBy rank_by = RankBy::busbw;
  std::string job_sizes;  // --job-sizes; empty: the runs' workload, else every measured size
  std::string output;    // -o; empty: `out`
};

std::string export_text(const Recommendation& rec, const RecommendFlags& flags, std::ostream& err) {
  switch (flags.format) {
    case RecommendFormat::table: return format_recommend_table(rec);
    case RecommendFormat::env:
      // The comma list has no room for comments: say on stderr what was held back.
      if (flags.env_style == EnvStyle::container) {
        for (const auto& e : rec.env) {
          if (!e.exported) err << "ncclsweep: not exported: " << e.name << "=" << e.value << ": " << e.why << "\n";
        }
      }
      return format_env(rec, flags.env_style);
    case RecommendFormat::nccl_tuner: return format_nccl_tuner(rec);
    case RecommendFormat::yaml: return format_recommend_yaml(rec);
    case RecommendFormat::json: return format_recommend_json(rec);
  }
  return {};
}

// Writes the export to -o or `out`, and to `err` what a container list held back;
// returns kExitOk. Throws UsageError for bad input.
int run_recommend_command(const RecommendFlags& flags, std::ostream& out, std::ostream& err) {
  RecommendOptions options;
  if (!flags.job_sizes.empty()) options.job_sizes = parse_job_sizes(flags.job_sizes);  // a typo fails before reading
  std::vector<RunInput> runs;
  for (const auto& path : flags.inputs) runs.push_back({read_run_document(path), path});
  options.baseline = flags.baseline;
  options.rank_by = flags.rank_by;
  const std::string text = export_text(recommend(runs, options), flags, err);
  if (flags.output.empty()) {
    out << text << std::flush;
    return kExitOk;
  }
  write_output_file(flags.output, text);
  return kExitOk;
}

}  // namespace

void add_recommend_command(CLI::App& app, CommandAction& chosen) {
  auto args = std::make_shared<RecommendFlags>();
  CLI::App* cmd = add_command(
      app, chosen, args, "recommend",
      "Per collective and size band, the sweep point that beats the baseline beyond noise, and exports",
      [](const RecommendFlags& flags, CommandContext&) { return run_recommend_command(flags, std::cout, std::cerr); });
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
}

}  // namespace ncclsweep
