#pragma once
// `ncclsweep report DIR` for a run measured under compute (docs/overlap.md): per point,
// size and placement the collective's slowdown beside the GEMM's, the overlapped wall
// time against the serial sum, and per setting both slowdowns (an SVG scatter) and the
// time per training iteration under the idle and the overlapped model.
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "core/report_format.hpp"
#include "results/record.hpp"

namespace ncclsweep {

struct OverlapRow {
  std::string point, collective, dtype;
  Bytes size_bytes = 0;
  Placement placement = Placement::out_of_place;
  UnderCompute figures;  // the first repeat's (what does not vary, and the times)
  double comm_slowdown = 0, compute_slowdown = 0, exposed_us = 0;  // medians over repeats
};

// One setting (sweep point): the median slowdowns over its rows, and its time per
// iteration under both models when the run had a workload.
struct OverlapSetting {
  std::string point;
  double comm_slowdown = 0, compute_slowdown = 0;
  int sms = -1;  // channels NCCL logged for it (one SM each); -1: not logged
  std::optional<double> idle_ms, under_compute_ms;
};

struct OverlapReport {
  std::string name;
  std::string load;  // "gemm 8192x8192x8192 bfloat16"
  ComputeSite site = ComputeSite::gpu;
  int ranks = 0;
  std::vector<OverlapRow> rows;          // by point, then collective, size, placement
  std::vector<OverlapSetting> settings;  // in point order
  std::string time_span = "per training iteration";  // what idle_ms covers (WorkloadWeights::span)
  std::vector<std::string> notes;        // CPU analogue, one rank, plain-loop figure
};

bool has_under_compute(const RunDocument& run);

OverlapReport build_overlap_report(const RunDocument& run);

// table | md | csv | json | svg. Throws UsageError naming the valid formats.
void print_overlap_report(const OverlapReport& report, ReportFormat format, std::ostream& out);

// What a run under compute must say about itself (the run's notes and the report's):
// the mpi engine's load is a CPU analogue; one rank's collective is a copy or nothing.
std::vector<std::string> under_compute_notes(ComputeSite site, int ranks);

}  // namespace ncclsweep
