#pragma once
// `run --verify-recommendation FILE`: default against recommended in one launch, and the
// check afterwards (docs/recommend.md). This module only builds the sweep to run and
// judges its results; the run itself is an ordinary sweep run.
#include <string>
#include <utility>
#include <vector>

#include "compare/noise_band.hpp"
#include "plan/sweep_plan.hpp"
#include "results/record.hpp"
#include "tuner/tuner_rules.hpp"

namespace ncclsweep {

// One variable the file sets, and its line there (for a refusal of its value).
struct RecommendedVariable {
  std::string name, value;
  SourcePosition where;
};

// What the file recommends: process-level variables (an env export), tuner rules (a
// tuner CSV, applied by libncclsweep-tuner.so), or a sweep file (recommend's yaml).
struct RecommendedSettings {
  enum class Kind { env, tuner, sweep } kind = Kind::env;
  std::string path;
  std::vector<RecommendedVariable> env;                   // env: the variables; tuner: plugin and rule file
  std::vector<tuner::TunerRule> rules;                    // tuner
  std::string sweep_text;                                 // sweep: the file as read
};

// Reads FILE: `.yaml`/`.yml` is a sweep file; a file of tuner rule lines is a tuner CSV
// (`plugin` is then the libncclsweep-tuner.so to load); anything else is env lines
// (KEY=VALUE, export KEY=VALUE, or one comma list). UsageError for unreadable files,
// tuner lines with problems (with their line numbers) and files with nothing in them.
RecommendedSettings read_recommendation(const std::string& path, const std::string& plugin);

// The sweep that measures the recommendation, checked as a sweep file is: a sweep file
// as written; else one point with its settings (the runner adds the default point, in
// its own isolation group), the rules' collectives and sizes unless the command line
// names them, repeats interleaved. A refusal names the recommendation's file and line.
Sweep verification_sweep(const RecommendedSettings& recommended, const SweepContext& context);

// The plan with NCCL's defaults added as the first point, in an isolation group of its
// own (fresh processes, no variable set), and made the baseline.
SweepPlan with_default_point(SweepPlan plan);

// One band's verdict: a tuner rule's size range, or one collective for env settings.
struct VerifiedBand {
  std::string band;        // "rule at line 3: allgather 1 MiB .. 16 MiB ring/ll" / "all_gather"
  std::string point;       // the recommended point's label
  int sizes = 0;           // sizes judged
  int faster = 0, same = 0, slower = 0, mismatch = 0;
  double median_gain = 0;  // recommended / default busbw - 1, over judged rows
  std::string verdict;     // faster | within noise | slower | mismatch | not measured
  std::vector<std::string> mismatches;  // "all_gather 4 MiB: NCCL chose RING/SIMPLE"
};

struct VerificationReport {
  std::string baseline;
  std::vector<VerifiedBand> bands;
  bool failed() const;  // a band slower beyond noise
  std::string text() const;
};

// Judges every non-baseline point against the run's baseline with compare's noise
// verdicts. With rules, per rule: a size where NCCL's TUNING log shows another
// algorithm or protocol than the rule asked for is a mismatch, never a win.
VerificationReport check_verification(const RunDocument& run, const std::vector<tuner::TunerRule>& rules,
                                      const NoiseModel& noise = {});

}  // namespace ncclsweep
