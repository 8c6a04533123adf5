#pragma once
// From sweep results to settings to ship (docs/recommend.md): per collective and size
// band, the sweep point that beats the baseline beyond the noise of both at every
// measurement, and the process-level variables that win across the sizes that matter.
// Pure: reads RunDocuments, no I/O.
#include <string>
#include <string_view>
#include <vector>

#include "compare/noise_band.hpp"
#include "core/collective.hpp"
#include "core/name_table.hpp"
#include "core/units.hpp"
#include "results/record.hpp"

namespace ncclsweep {

struct RunInput {
  RunDocument run;
  std::string path;  // for messages
};

// What a point must beat the baseline on. busbw: idle busbw (the default). Under
// compute: the time each call exposes beside the run's compute load (docs/overlap.md),
// which sums to the iteration time under compute; between winners tied on it, the one
// taking fewer SMs (NCCL's logged channels) wins.
enum class RankBy { busbw, iteration_time_under_compute };
inline constexpr NameTable<RankBy, 2> kRankByNames{
    "rank-by", {{{RankBy::busbw, "busbw"}, {RankBy::iteration_time_under_compute, "iteration-time-under-compute"}}}};

// One size a job sends (--job-sizes): of one collective, or of every collective measured.
struct JobSize {
  const CollectiveKind* collective = nullptr;  // nullptr: every collective the runs measured
  Bytes bytes = 0;
  auto operator<=>(const JobSize&) const = default;
};

// "256M,1G" (every collective measured) or "all_gather:256M,reduce_scatter:1M:4M" (one
// collective's sizes or range), items mixed freely. Throws UsageError naming the bad item.
std::vector<JobSize> parse_job_sizes(std::string_view text);
// The --job-sizes text that parses back to `sizes`, shortest units first ("256M,1G").
std::string job_sizes_text(const std::vector<JobSize>& sizes);

struct RecommendOptions {
  std::string baseline;  // a point label; empty: the run's baseline, else the point without settings, else the first
  NoiseModel noise;      // compare's noise band around each figure
  RankBy rank_by = RankBy::busbw;
  // The sizes the job sends, when given: they alone matter for the job-wide decision,
  // in place of the runs' workload.
  std::vector<JobSize> job_sizes;
};

// Adjacent measured sizes of one collective with the same winner (or none).
struct Band {
  const CollectiveKind* collective = nullptr;
  int ranks = 0;   // of the communicator measured (a sub-communicator's own)
  int nodes = 0;   // -1 when a sub-communicator's node count is not known
  std::vector<Bytes> sizes;  // measured sizes, ascending
  std::string winner;        // point label; empty: no clear winner, the default stays
  std::vector<SettingOutcome> settings;  // the winner's settings
  int support = 0;           // records (winner and baseline, every repeat and placement) behind the verdicts
  double median_gain = 0;    // winner / baseline busbw - 1, over the band's rows
  double worst_gain = 0;
  // NCCL's choice for the winner as its TUNING log said ("RING", "LL", 24), when every
  // logged size of the band agrees; empty / -1 when not logged.
  std::string logged_algorithm, logged_protocol;
  int logged_channels = -1;
  std::string why;  // for a band without a winner
};

// One environment setting some band's winner uses.
struct EnvChoice {
  std::string name, value;
  double share = 0;       // of the weighted sizes that matter, where the winner sets it
  bool exported = false;  // a setting of the job-wide point (Recommendation::job_wide)
  std::string why;        // where it wins, or why it is not exported
};

// Whether one point's settings may be set for the whole job: it wins or ties within
// noise at every band that matters, and the measured range covers the job's sizes.
struct JobWide {
  std::string point;    // label of the point exported; empty: none
  std::string refusal;  // why no point may be exported job-wide (then env formats exit 2)
  std::vector<std::string> disagreeing;  // "all_gather 64 MiB: NCCL_PROTO=LL slower than the default beyond noise"
  std::string coverage;  // "measured all_gather 1 MiB .. 64 MiB", and what the job sends outside it
};

// Whether NCCL's tuner interface chooses this setting per call (algorithm, protocol,
// channels). Every other variable is read once per process: only the environment carries it.
bool tuner_can_set(const std::string& name);

struct Recommendation {
  std::vector<std::string> runs;  // run names, in input order
  int ranks = 0, nodes = 0;
  std::vector<std::string> dtypes;  // as measured, for re-verification
  std::string baseline;           // label of the baseline point
  std::string baseline_reason;    // how it was chosen
  std::vector<SettingOutcome> baseline_settings;
  std::string weights;            // "calls per iteration from <workload>", or "every measured size alike"
  std::vector<Band> bands;        // by collective, then size
  std::vector<EnvChoice> env;     // by name, then value
  JobWide job_wide;
  // With a workload and no job-wide export: which single point takes the least collective
  // time over the job's iteration (run.json's iteration_times), in words; empty otherwise.
  std::string iteration_best;
  std::vector<std::string> notes;  // points left out and why, rows ignored, ...
};

// Throws UsageError when the runs cannot be judged together (no sweep points, different
// rank counts, no baseline rows).
Recommendation recommend(const std::vector<RunInput>& runs, const RecommendOptions& options = {});

// "all_gather 1 MiB .. 16 MiB" / "all_gather 64 MiB".
std::string band_label(const Band& band);

}  // namespace ncclsweep
