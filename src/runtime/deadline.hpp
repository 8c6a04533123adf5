#pragma once
// How long a worker may go without a word before its MPI rank declares the point timed
// out (docs/reliability.md). Every communicator init and every measured size sends
// messages, so this bounds each of them.
#include "plan/measurement_plan.hpp"

namespace ncclsweep {

// A communicator init at scale takes tens of seconds; a hang takes forever.
inline constexpr double kDefaultInitDeadlineS = 300;
// Per measured size: this much slack, plus every call of the size at a pessimistic rate.
inline constexpr double kSizeDeadlineSlackS = 60;
inline constexpr double kPessimisticBytesPerS = 0.5e9;

// spec.timeout_s when given; else the larger of the init deadline and the largest
// size's: slack + (warmup + iters + 1 check) x 2 placements x bytes / pessimistic rate.
double progress_deadline_s(const RunSpec& spec, const MeasurementPlan& plan);

// How long one MPI call of a run may wait for the other ranks before the rank ends itself
// (MpiSession's stall watch). In-process (the mpi engine) a call is at most one size's
// calls: the deadline. With workers a rank waits in the relay while another rank's worker
// runs out its own deadline first (then the point is recorded as timed out and the run
// goes on): twice the deadline and a minute. Never under 10 s.
double stall_limit_s(const RunSpec& spec, const MeasurementPlan& plan, bool in_process);

}  // namespace ncclsweep
