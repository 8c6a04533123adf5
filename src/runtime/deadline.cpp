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

}  // namespace ncclsweep
