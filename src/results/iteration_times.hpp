#pragma once
// After a run with sizes from a workload: each point's collective time per training
// iteration, the measured times weighed by the workload's calls (run.json's
// iteration_times), so points rank by what a training step would spend.
#include <vector>

#include "results/record.hpp"

namespace ncclsweep {

// Per point: collective time per iteration from the run's out-of-place records
// (workload/histogram.hpp: iteration_time, log-linear interpolation, marked). Empty
// without a workload.
std::vector<PointIterationTime> weigh_points(const RunDocument& run);

}  // namespace ncclsweep
