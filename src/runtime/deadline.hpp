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

}  // namespace ncclsweep
