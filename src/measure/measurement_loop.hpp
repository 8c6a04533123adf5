#pragma once
// Runs a measurement plan on an engine: for every call and placement, a checked run,
// warm-up, timed iterations until the stopping rule is met, and the times reduced
// across ranks (per rank for the average, per iteration for the percentiles).
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/repeat_order.hpp"
#include "core/stopping_rule.hpp"
#include "engine/coordinator.hpp"
#include "engine/engine.hpp"
#include "plan/measurement_plan.hpp"
#include "spec/run_spec.hpp"
#include "results/measurement_key.hpp"
#include "results/result_sink.hpp"

namespace ncclsweep {

struct LoopOptions {
  int warmup = 5;
  StoppingRule stopping;  // fixed_iters > 0 for --iters
  bool check = true;
  int corrupt_rank = -1;  // fault injection: this rank corrupts one output element per checked run
  std::string point = "default";  // the sweep point these measurements belong to
  int first_repeat = 0;   // repeat numbers run here: first_repeat .. first_repeat + repeats - 1
  int repeats = 1;
  RepeatOrder order = RepeatOrder::sequential;  // of the repeats over the plan's calls
  std::uint64_t seed = 0;
  // Under the noise-based stop, warm-up ends early once it has taken this long (after
  // at least one call): a 1 GiB call at a slow setting is warm after one iteration.
  double warmup_budget_seconds = 0.05;
  // Calls shorter than this are timed in samples of several calls, about this long.
  double sample_seconds = kSampleSeconds;
  // --resume: measurements already recorded; skipped.
  std::set<MeasurementKey> done;
  // Polled on every rank before each size (this rank's wish to stop, e.g. a signal);
  // the ranks agree on it collectively, so all stop at the same size. Empty: never.
  std::function<bool()> stop_requested;
  // NCCLSWEEP_TRACE_TIMING: rank 0 prints where each measurement's wall time went
  // (check, warm-up, timed samples, reductions, clock reads) to stderr.
  bool trace_timing = false;
  // --with-compute: each placement is also measured beside this compute (docs/overlap.md).
  std::optional<ComputeLoad> compute;
};

// The spec's measurement options for the loop.
LoopOptions loop_options(const RunSpec& spec, int corrupt_rank, std::string point);

// The per-iteration side of a record, reduced across ranks.
struct IterationTimes {
  std::vector<double> slowest_seconds;  // per sample, the maximum over ranks
  int calls_per_sample = 1;
  int slowest_rank = -1;
  int slowest_rank_iterations = 0;
  StopReason stopped_by = StopReason::not_yet;
};

// The record of one placement from the per-call times of every rank.
MeasurementRecord make_record(const PlannedCall& planned, Placement placement, int ranks, const LoopOptions& options,
                              double min_s, double avg_s, double max_s);

// Adds the percentiles, spread and slowest rank to a record.
void add_iteration_stats(const IterationTimes& times, MeasurementRecord& record);

// One visit of a sweep point: which of its repeats one communicator measures.
struct PointVisit {
  std::size_t point = 0;
  int first_repeat = 0;
  int repeats = 1;
};

// Sequential order, or a single point: each point once with all repeats (the
// measurement loop orders them over sizes). Interleaved or shuffled over several points:
// one visit per point and repeat in that order (A B A B), each with a fresh communicator.
std::vector<PointVisit> point_visits(std::size_t points, const LoopOptions& options);

// Every rank calls this; `sink` (rank 0's, null elsewhere) gets each size's row as it
// completes. Returns false when the ranks agreed to stop before the end.
bool measure_plan(const MeasurementPlan& plan, const LoopOptions& options, Engine& engine, Coordinator& ranks,
                  ResultSink* sink);

}  // namespace ncclsweep
