#pragma once
// The tests locate and soak time in fixed rounds: a collective at a total size, in
// float32, on one of the communicators a step has split; `iters` calls a round. A round's
// figure is this rank's time per call; a group's is its slowest rank's
// (Coordinator::max_each), since a collective ends when its slowest member does.
#include <string>
#include <vector>

#include "core/collective.hpp"
#include "core/units.hpp"
#include "engine/engine.hpp"
#include "results/record.hpp"

namespace ncclsweep {

struct FixedTest {
  const CollectiveKind* collective = nullptr;
  Bytes bytes = 0;  // the total size asked for
};

// What repeats of a test share: "all_gather 1 MiB".
std::string test_name(const CollectiveKind& collective, Bytes bytes);

// The test's call on a communicator of `ranks` ranks (`comm` numbered as Engine::split does).
CollectiveCall fixed_call(const FixedTest& test, int ranks, int comm);

// The total size that call measures: rounded down to whole float32 elements per rank
// (nccl-tests convention).
Bytes measured_bytes(const FixedTest& test, int ranks);

// The record of one round of the test on a communicator of `ranks` ranks whose slowest
// rank took `seconds` per call: its call, size and figures. A round keeps only that
// slowest time (time_us.max; min and avg stay 0).
MeasurementRecord fixed_record(const FixedTest& test, int ranks, double seconds, int warmup, int iters);

// The record of several rounds of `calls_per_round` calls each, `round_seconds` the
// slowest rank's time per call in each (not empty): the median round is its figure, the
// rounds its samples (iteration_us: their spread; iters: every call they timed).
MeasurementRecord rounds_record(const FixedTest& test, int ranks, const std::vector<double>& round_seconds,
                                int warmup, int calls_per_round);

// `count` untimed calls of each (nothing when count <= 0).
void warm_up(Engine& engine, const std::vector<CollectiveCall>& calls, int count);

// This rank's seconds per call over `iters` timed calls.
double seconds_per_call(Engine& engine, const CollectiveCall& call, int iters);

}  // namespace ncclsweep
