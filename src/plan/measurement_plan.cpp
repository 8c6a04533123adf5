#include "plan/measurement_plan.hpp"

#include "core/errors.hpp"

namespace ncclsweep {

MeasurementPlan plan_measurements(const RunSpec& spec, int ranks) {
  if (spec.root < 0 || spec.root >= ranks) {
    throw UsageError("root " + std::to_string(spec.root) + " is not a rank of this run (" + std::to_string(ranks) +
                         " ranks)",
                     "choose --root between 0 and " + std::to_string(ranks - 1));
  }
  MeasurementPlan plan;
  for (const CollectiveKind* kind : spec.collectives) {
    for (const DataType* dtype : spec.dtypes) {
      // Collectives that do not reduce ignore the op: measure them once.
      const std::vector<ReduceOp> ops = kind->reduces ? spec.ops : std::vector<ReduceOp>{ReduceOp::sum};
      for (const ReduceOp op : ops) {
        for (const Bytes requested : spec.sizes) {
          const std::uint64_t count = count_per_rank(*kind, requested, ranks, dtype->bytes);
          const Bytes total = total_bytes(*kind, count, ranks, dtype->bytes);
          const std::string unit = kind->splits_across_ranks
                                       ? std::to_string(ranks) + " ranks x " + std::to_string(dtype->bytes) + " B"
                                       : std::to_string(dtype->bytes) + " B";
          if (count == 0) {
            plan.notes.push_back(std::string(kind->name) + " " + std::string(dtype->name) + ": " +
                                 std::to_string(requested) + " B is below one element per rank (" + unit +
                                 "); skipped");
            continue;
          }
          if (total != requested && op == ops.front()) {
            plan.notes.push_back(std::string(kind->name) + " " + std::string(dtype->name) + ": " +
                                 std::to_string(requested) + " B rounded down to " + std::to_string(total) +
                                 " B (a multiple of " + unit + ")");
          }
          PlannedCall planned;
          planned.call = CollectiveCall{kind, dtype, op, count, kind->has_root ? spec.root : -1,
                                        Placement::out_of_place};
          planned.reduces = kind->reduces;
          planned.requested_bytes = requested;
          planned.total_bytes = total;
          plan.calls.push_back(planned);
        }
      }
    }
  }
  if (plan.calls.empty()) {
    throw UsageError("nothing to measure: every size is below one element per rank",
                     "use larger --sizes (e.g. 1M:1G:x4)");
  }
  return plan;
}

}  // namespace ncclsweep
