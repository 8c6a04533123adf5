#include "runtime/deadline.hpp"

#include <algorithm>

namespace ncclsweep {

double progress_deadline_s(const RunSpec& spec, const MeasurementPlan& plan) {
  if (spec.timeout_s > 0) return spec.timeout_s;
  Bytes largest = 0;
  for (const PlannedCall& call : plan.calls) largest = std::max(largest, call.total_bytes);
  const double calls = 2.0 * (spec.warmup + spec.iters + 1);
  return std::max(kDefaultInitDeadlineS,
                  kSizeDeadlineSlackS + calls * static_cast<double>(largest) / kPessimisticBytesPerS);
}

double stall_limit_s(const RunSpec& spec, const MeasurementPlan& plan, bool in_process) {
  const double deadline = progress_deadline_s(spec, plan);
  return std::max(10.0, in_process ? deadline : 2 * deadline + 60);
}

}  // namespace ncclsweep
