#pragma once
// Per-group figures of a measurement on sub-communicators: each group's ranks' times
// reduced within the group, and its busbw on the group's rank count.
#include <vector>

#include "plan/measurement_plan.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// Fills record.communicator, groups and per_communicator from every rank's per-call seconds (rank order).
void add_sub_communicator_times(MeasurementRecord& record, const PlannedCall& planned, const std::vector<double>& seconds_by_rank);

}  // namespace ncclsweep
