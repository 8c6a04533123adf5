#pragma once
// One `ncclsweep recommend DIR...`: the winners of sweep results per collective and size
// band, printed as a table or exported as env lines, NCCL tuner rules, a sweep file or
// JSON (docs/recommend.md).
#include <iosfwd>
#include <string>
#include <vector>

#include "core/name_table.hpp"
#include "recommend/exports.hpp"
#include "recommend/recommendation.hpp"

namespace ncclsweep {

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

// Writes the export to -o or `out`, and to `err` what a container list held back;
// returns kExitOk. Throws UsageError for bad input.
int run_recommend_command(const RecommendFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace ncclsweep
