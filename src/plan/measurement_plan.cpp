#include "plan/measurement_plan.hpp"

#include <algorithm>

#include "core/errors.hpp"

namespace ncclsweep {
namespace {

// The index call.comm takes for `group` (adding it to the plan's list), 0 for the world.
int comm_index(MeasurementPlan& plan, const CommSplit& group, int ranks) {
  if (group.is_world() || group.size == ranks) return 0;
  if (group.size < 1 || ranks % group.size != 0 || group.stride < 1 || ranks % (group.size * group.stride) != 0) {
    throw UsageError("groups " + group.label() + " do not divide the " + std::to_string(ranks) + " ranks evenly",
                     "choose groups whose size x stride divides the rank count");
  }
  const auto same = [&](const CommSplit& g) { return g.size == group.size && g.stride == group.stride; };
  const auto it = std::find_if(plan.comms.begin(), plan.comms.end(), same);
  if (it != plan.comms.end()) return static_cast<int>(it - plan.comms.begin()) + 1;
  plan.comms.push_back(group);
  return static_cast<int>(plan.comms.size());
}

// One call of `requested` total bytes on `group`, rounded to what the collective can move.
void add_call(MeasurementPlan& plan, const RunSpec& spec, int ranks, const CollectiveKind& kind, const DataType& dtype,
              ReduceOp op, bool first_op, Bytes requested, const CommSplit& group) {
  const int comm = comm_index(plan, group, ranks);
  const int members = comm == 0 ? ranks : group.size;
  if (kind.has_root && spec.root >= members) {
    throw UsageError("root " + std::to_string(spec.root) + " is not a rank of a " + std::to_string(members) +
                         "-rank communicator",
                     "choose --root between 0 and " + std::to_string(members - 1));
  }
  const std::uint64_t count = count_per_rank(kind, requested, members, dtype.bytes);
  const Bytes total = total_bytes(kind, count, members, dtype.bytes);
  const std::string unit = kind.splits_across_ranks
                               ? std::to_string(members) + " ranks x " + std::to_string(dtype.bytes) + " B"
                               : std::to_string(dtype.bytes) + " B";
  if (count == 0) {
    plan.notes.push_back(std::string(kind.name) + " " + std::string(dtype.name) + ": " + std::to_string(requested) +
                         " B is below one element per rank (" + unit + "); skipped");
    return;
  }
  if (total != requested && first_op) {
    plan.notes.push_back(std::string(kind.name) + " " + std::string(dtype.name) + ": " + std::to_string(requested) +
                         " B rounded down to " + std::to_string(total) + " B (a multiple of " + unit + ")");
  }
  PlannedCall planned;
  planned.call = CollectiveCall{&kind, &dtype, op, count, kind.has_root ? spec.root : -1, Placement::out_of_place, comm};
  planned.reduces = kind.reduces;
  planned.requested_bytes = requested;
  planned.total_bytes = total;
  planned.split = comm == 0 ? CommSplit{} : group;
  plan.calls.push_back(planned);
}

}  // namespace

std::vector<int> comm_colors(const MeasurementPlan& plan, int rank) {
  std::vector<int> colors;
  for (const CommSplit& g : plan.comms) colors.push_back(split_colour(g, rank));
  return colors;
}

// Every call once per (footprint, cache state, buffer mode, launch mode), modes
// outermost, so each mode's sizes print as one table and a mode's buffers are set up once.
// The footprint resolves against the run's largest call (nccl-tests allocates once at -e).
void expand_call_modes(const RunSpec& spec, MeasurementPlan& plan) {
  const std::vector<PlannedCall> calls = std::move(plan.calls);
  plan.calls.clear();
  Bytes largest = 0;
  for (const PlannedCall& c : calls) largest = std::max(largest, c.total_bytes);
  for (const BufferFootprint& footprint : spec.footprints) {
    for (const CacheState cache : spec.cache_states) {
      for (const BufferMode buffers : spec.buffer_modes) {
        for (const LaunchMode launch : spec.launch_modes) {
          for (PlannedCall planned : calls) {
            planned.call.buffers = buffers;
            planned.call.launch = launch;
            planned.call.cache = cache;
            planned.footprint = footprint;
            planned.call.footprint_bytes = footprint_bytes(footprint, planned.total_bytes, largest);
            plan.calls.push_back(planned);
          }
        }
      }
    }
  }
}

void check_plan_size(const RunSpec& spec, const SourcePosition& sizes_place) {
  std::uint64_t calls = spec.calls.size();
  std::string shape = std::to_string(spec.calls.size()) + " workload calls";
  if (spec.calls.empty()) {
    for (const CollectiveKind* kind : spec.collectives) {
      calls += spec.dtypes.size() * (kind->reduces ? spec.ops.size() : 1) * spec.sizes.size();
    }
    shape = std::to_string(spec.collectives.size()) + " collectives x " + std::to_string(spec.dtypes.size()) +
            " dtypes x " + std::to_string(spec.ops.size()) + " ops x " + std::to_string(spec.sizes.size()) + " sizes";
  }
  const std::uint64_t modes =
      spec.footprints.size() * spec.cache_states.size() * spec.buffer_modes.size() * spec.launch_modes.size();
  if (calls * std::max<std::uint64_t>(modes, 1) <= kMaxPlannedCalls) return;
  throw UsageError("the run would plan " + std::to_string(calls * modes) + " measurements per point (" + shape + " x " +
                       std::to_string(spec.footprints.size()) + " buffer footprints x " +
                       std::to_string(spec.cache_states.size()) + " cache states x " +
                       std::to_string(spec.buffer_modes.size() * spec.launch_modes.size()) +
                       " buffer and launch modes), more than the " + std::to_string(kMaxPlannedCalls) + " one run plans",
                   "measure fewer sizes, dtypes, ops or modes, or split the sweep into several runs", sizes_place);
}

MeasurementPlan plan_measurements(const RunSpec& spec, int ranks, const SourcePosition& sizes_place,
                                  const SourcePosition& root_place) {
  check_plan_size(spec, sizes_place);
  if (spec.root < 0 || spec.root >= ranks) {
    const bool flag = root_place.line == 0;
    throw UsageError("root " + std::to_string(spec.root) + " is not a rank of this run (" + std::to_string(ranks) +
                         " ranks)",
                     std::string(flag ? "choose --root" : "set root:") + " between 0 and " + std::to_string(ranks - 1),
                     root_place);
  }
  MeasurementPlan plan;
  if (!spec.calls.empty()) {
    // Sizes from a workload: each call as the job makes it, on its own group.
    for (const SizedCall& c : spec.calls) {
      add_call(plan, spec, ranks, *c.kind, *c.dtype, c.kind->reduces ? c.op : ReduceOp::sum, true, c.bytes, c.split);
    }
  }
  for (const CollectiveKind* kind : spec.calls.empty() ? spec.collectives : std::vector<const CollectiveKind*>{}) {
    for (const DataType* dtype : spec.dtypes) {
      // Collectives that do not reduce ignore the op: measure them once.
      const std::vector<ReduceOp> ops = kind->reduces ? spec.ops : std::vector<ReduceOp>{ReduceOp::sum};
      for (const ReduceOp op : ops) {
        for (const Bytes requested : spec.sizes) {
          add_call(plan, spec, ranks, *kind, *dtype, op, op == ops.front(), requested, spec.split);
        }
      }
    }
  }
  expand_call_modes(spec, plan);
  for (const CommSplit& g : plan.comms) {
    plan.notes.push_back("sub-communicators " + g.label() + ": " + std::to_string(ranks / g.size) +
                         " groups run at once; busbw on a group's ranks, time of the slowest group");
  }
  if (plan.calls.empty()) {
    throw UsageError("nothing to measure: every size is below one element per rank",
                     "use larger sizes (e.g. 1M:1G:x4)", sizes_place);
  }
  return plan;
}

MeasurementPlan plan_measurements_for_estimate(const RunSpec& spec, int ranks, bool& on_world) {
  on_world = false;
  try {
    return plan_measurements(spec, std::max(ranks, 1));
  } catch (const UsageError&) {
    RunSpec world = spec;
    world.split = CommSplit{};
    for (SizedCall& c : world.calls) c.split = CommSplit{};
    on_world = true;
    return plan_measurements(world, std::max(ranks, 1));
  }
}

}  // namespace ncclsweep
