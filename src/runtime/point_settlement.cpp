#include "runtime/point_settlement.hpp"

#include <algorithm>

namespace ncclsweep {

Settlement settle_points(int group, const std::vector<PointSpec>& points, std::vector<PointOutcome> reported,
                         const WorkerRunEnd& end, bool last_try) {
  Settlement settlement;
  settlement.outcomes = std::move(reported);
  const std::string& reason = end.failure.reason;
  for (const PointSpec& point : points) {
    const bool done = std::any_of(settlement.outcomes.begin(), settlement.outcomes.end(),
                                  [&](const PointOutcome& o) { return o.label == point.label; });
    if (!done && !last_try && end.ended_after_outcome && settlement.settled > 0) break;
    ++settlement.settled;
    if (done) continue;
    PointOutcome failed;
    failed.label = point.label;
    failed.isolation_group = group;
    const bool interrupted = end.stopped && !end.failed;
    failed.status = interrupted              ? PointStatus::interrupted
                    : end.failure.timed_out ? PointStatus::timeout
                                            : PointStatus::failed;
    failed.error = interrupted ? "not run: stopped by a signal" : reason;
    failed.settings = point.settings;
    settlement.outcomes.push_back(failed);
    if (!reason.empty() && !interrupted) {
      settlement.failures.push_back("point " + point.label + " " + std::string(name_of(failed.status)) + ": " + reason);
    }
    if (!last_try) break;
  }
  return settlement;
}

}  // namespace ncclsweep
