#pragma once
// The arithmetic of one collective-under-compute measurement, shared by the engines
// (docs/overlap.md): from the intervals each round timed to OverlapTimes. Pure.
#include <vector>

#include "engine/engine.hpp"

namespace ncclsweep {

struct TimeInterval {
  double start = 0, end = 0;  // seconds, one clock per round
};

// One round: the alone figures, and the overlapped part's collective window and GEMMs
// (every GEMM the stream ran from the first, launched before the window, to the last).
struct OverlapRound {
  double compute_alone_s = 0;  // per GEMM
  double comm_alone_s = 0;     // the `calls` calls, in all
  int calls = 0;
  TimeInterval window;                // first call's start to the last call's end
  std::vector<TimeInterval> gemms;    // in launch order
};

// Sums the rounds into per-call, per-GEMM and per-round figures. A GEMM counts as under
// the collective when it ran wholly inside the window; when none did (a GEMM longer than
// the window), the GEMMs that overlapped it count, so the figure is never empty.
OverlapTimes summarize_rounds(const std::vector<OverlapRound>& rounds);

}  // namespace ncclsweep
