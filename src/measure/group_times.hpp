#pragma once
// Per-group figures of a measurement on sub-communicators: each group's ranks' times
// reduced within the group, and its busbw on the group's rank count.
#include <vector>

#include "plan/measurement_plan.hpp"
#include "results/record.hpp"

namespace ncclsweep {

// Fills record.communicator and communicators on every rank of `world`, and
// per_communicator where every rank's per-call seconds (rank order) are known: on rank 0,
// which gathered them; elsewhere `seconds_by_rank` is empty and per_communicator stays so.
void add_sub_communicator_times(MeasurementRecord& record, const PlannedCall& planned, int world,
                                const std::vector<double>& seconds_by_rank);

}  // namespace ncclsweep
