#pragma once
// The forms a Recommendation is written in (docs/recommend.md): a table for people, env
// lines for job scripts, rules for NCCL's tuner-plugin CSV, a sweep file to re-verify
// the winners, and JSON with all of it. Pure: text in, text out.
#include <string>
#include <vector>

#include "recommend/recommendation.hpp"
#include "tuner/tuner_rules.hpp"

namespace ncclsweep {

// One rule of the tuner CSV and the band it came from.
struct TunerLine {
  tuner::TunerRule rule;
  std::string comment;  // "all_gather 1 MiB .. 4 MiB: NCCL_PROTO=LL, busbw +25.0% median, ..."
};

// A band winner no tuner rule carries (a variable a tuner cannot set, a collective NCCL's
// tuner does not ask about, an unknown algorithm) while no point holds job-wide: its
// environment is right for a job whose calls all fall in the bands it wins, and
// `--format env --job-sizes` with those sizes exports it.
struct PerJobEnv {
  std::string point;
  std::vector<std::string> settings;  // "NCCL_IB_QPS_PER_CONNECTION=4": what it changes from the baseline
  std::vector<std::string> bands;     // band labels where it wins
  std::string job_sizes;              // the --job-sizes value of those bands
  std::string command() const { return "--format env --job-sizes " + job_sizes; }
};

struct TunerExport {
  std::vector<TunerLine> lines;
  std::vector<std::string> notes;  // bands a tuner cannot express, why, and what carries them instead
  std::vector<PerJobEnv> per_job;  // empty when a point is exported job-wide
};

// A line per winning band whose settings a tuner can steer (algorithm, protocol,
// channels), for the runs' node and rank counts; a band whose winner also needs another
// variable gets a note instead, naming the export that carries it: `env` when its point
// holds job-wide, else the per-job environment of the bands it wins.
TunerExport tuner_export(const Recommendation& rec);

enum class EnvStyle { plain, export_block, container };
inline constexpr NameTable<EnvStyle, 3> kEnvStyleNames{
    "--env-style", {{{EnvStyle::plain, "plain"}, {EnvStyle::export_block, "export"}, {EnvStyle::container, "container"}}}};

std::string format_recommend_table(const Recommendation& rec);
std::string format_env(const Recommendation& rec, EnvStyle style);
std::string format_nccl_tuner(const Recommendation& rec);
std::string format_recommend_yaml(const Recommendation& rec);
std::string format_recommend_json(const Recommendation& rec);

}  // namespace ncclsweep
