#pragma once
// Runs a measurement plan on an engine: for every call and placement, a checked run,
// warm-up, timed iterations, and the per-rank times reduced across ranks.
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "engine/engine.hpp"
#include "plan/measurement_plan.hpp"
#include "report/result_sink.hpp"

namespace ncclsweep {

struct LoopOptions {
  int warmup = 5;
  int iters = 20;
  bool check = true;
  int corrupt_rank = -1;  // fault injection: this rank corrupts one output element per checked run
  std::string point = "default";  // the sweep point these measurements belong to
  // --resume: measurement_key()s already recorded; those measurements are skipped.
  std::set<std::string> done;
  // Polled on every rank before each size (this rank's wish to stop, e.g. a signal);
  // the ranks agree on it collectively, so all stop at the same size. Empty: never.
  std::function<bool()> stop_requested;
};

// The record of one placement from the per-call times of every rank.
MeasurementRecord make_record(const PlannedCall& planned, Placement placement, int ranks, const LoopOptions& options,
                              double min_s, double avg_s, double max_s);

// Every rank calls this; `sink` (rank 0's, null elsewhere) gets each size's row as it
// completes. Returns false when the ranks agreed to stop before the end.
bool measure_plan(const MeasurementPlan& plan, const LoopOptions& options, Engine& engine, Coordinator& ranks,
                  ResultSink* sink);

}  // namespace ncclsweep
