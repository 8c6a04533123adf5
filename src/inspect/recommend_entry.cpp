#include "inspect/recommend_entry.hpp"

#include <fstream>
#include <ostream>

#include "core/errors.hpp"
#include "core/output_file.hpp"
#include "results/results_directory.hpp"

namespace ncclsweep {
namespace {

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

}  // namespace

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

}  // namespace ncclsweep
