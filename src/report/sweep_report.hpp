#pragma once
// `ncclsweep report DIR` for a sweep: per collective, busbw with one column per point
// and the change against the baseline, the best point per size band, each point's
// verification, and the workload-weighted collective time per training iteration.
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/report_format.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// Changes smaller than this share of the baseline's busbw are called noise when a
// point has one figure per size (docs/groups.md says why 5%).
inline constexpr double kSweepNoiseBand = 0.05;

struct SweepBlock {
  std::string title;  // "all_gather float32 on dp 2 (stride 1)"
  std::vector<Bytes> sizes;
  std::vector<std::vector<std::optional<double>>> busbw;  // [size][point], out-of-place
  std::vector<std::string> bands;  // "P1 best from 64 MiB: +45%", "within noise up to 1 MiB"
};

struct SweepReport {
  std::string name;
  std::vector<std::string> labels;        // per point
  std::vector<std::string> statuses;      // ok | mismatch | failed, with settings NCCL never read
  std::vector<std::string> verification;  // ok | N wrong | unchecked
  std::size_t baseline = 0;
  std::vector<SweepBlock> blocks;
  std::optional<WorkloadWeights> workload;  // none: sizes did not come from a workload
  std::vector<PointIterationTime> iteration_times;  // in point order
};

// Two or more points, or sizes from a workload.
bool is_sweep_run(const RunDocument& run);

SweepReport build_sweep_report(const RunDocument& run, double noise = kSweepNoiseBand);

// Consecutive sizes with the same best point, in words. busbw is [size][point].
std::vector<std::string> size_bands(const std::vector<Bytes>& sizes,
                                    const std::vector<std::vector<std::optional<double>>>& busbw,
                                    const std::vector<std::string>& labels, std::size_t baseline, double noise);

// table | md | csv | json. Throws UsageError naming the valid formats.
void print_sweep_report(const SweepReport& report, ReportFormat format, std::ostream& out);

// The ranking by time per iteration with the change against the baseline in ms and %:
// '#'-prefixed lines for the terminal, or a Markdown section. Empty without a workload.
std::string iteration_summary_text(const RunDocument& run, const std::string& baseline_point);
std::string iteration_summary_markdown(const RunDocument& run, const std::string& baseline_point);

}  // namespace ncclsweep
