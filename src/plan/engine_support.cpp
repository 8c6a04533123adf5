#include "plan/engine_support.hpp"

#include <algorithm>

#include "core/buffer_footprint.hpp"
#include "core/units.hpp"
#include "engine/call_buffers.hpp"
#include "engine/engine.hpp"

namespace ncclsweep {

EngineCheckPlaces places_of(const Sweep& sweep, bool given_dtype, bool given_op, bool given_engine, bool given_root,
                            bool given_footprint) {
  EngineCheckPlaces places;
  if (!given_dtype && sweep.dtypes_where.line > 0) places.dtypes = sweep.dtypes_where;
  if (!given_op && sweep.ops_where.line > 0) places.ops = sweep.ops_where;
  if (!given_engine && sweep.engine_where.line > 0) places.engine = sweep.engine_where;
  if (sweep.sizes_where.line > 0) places.sizes = sweep.sizes_where;
  if (!given_root && sweep.root_where.line > 0) places.root = sweep.root_where;
  if (!given_footprint && sweep.footprint_where.line > 0) places.footprint = sweep.footprint_where;
  return places;
}

void check_engine_support(const RunSpec& spec, EngineKind engine, const EngineCheckPlaces& places) {
  if (engine != EngineKind::mpi) return;  // the nccl engine runs every dtype, op and mode
  for (const CollectiveKind* kind : spec.collectives) {
    for (const DataType* dtype : spec.dtypes) {
      for (const ReduceOp op : spec.ops) {
        for (const BufferMode buffers : spec.buffer_modes) {
          for (const LaunchMode launch : spec.launch_modes) {
            const std::string reason = mpi_engine_unsupported_reason(*kind, *dtype, op, buffers, launch);
            if (reason.empty()) continue;
            const std::string what = reason + " (" + std::string(kind->name) + " " + std::string(dtype->name) +
                                     (kind->reduces ? " " + std::string(name_of(op)) : "") + ")";
            if (kind->reduces && !mpi_can_reduce(*dtype)) {
              throw UsageError(what, "drop " + std::string(dtype->name) + " from the dtypes, or run with --engine nccl",
                               places.dtypes);
            }
            if (kind->reduces && op == ReduceOp::avg) {
              throw UsageError(what, "override the op with --op sum (or ops: [sum]), or run with --engine nccl",
                               places.ops);
            }
            throw UsageError(what, "drop the buffers:/launch: modes, or run with --engine nccl", places.engine);
          }
        }
      }
    }
  }
}

void check_engine_support(const std::vector<SizedCall>& calls, const std::vector<ListedCall>& listed, EngineKind engine,
                          const EngineCheckPlaces& places) {
  if (engine != EngineKind::mpi) return;
  for (const SizedCall& call : calls) {
    const std::string reason = mpi_engine_unsupported_reason(*call.kind, *call.dtype, call.op, BufferMode::cuda_malloc,
                                                             LaunchMode::stream);
    if (reason.empty()) continue;
    // The listed call it came from: the same collective, op and dtype (one that names no
    // dtype takes the run's), the one of the same bytes first.
    const auto from_call = [&](bool same_bytes) {
      return std::find_if(listed.begin(), listed.end(), [&](const ListedCall& l) {
        return l.collective == call.kind && l.op.value_or(ReduceOp::sum) == call.op &&
               (!l.dtype || l.dtype == call.dtype) && (!same_bytes || l.bytes == call.bytes);
      });
    };
    auto from = from_call(true);
    if (from == listed.end()) from = from_call(false);
    const bool dtype = call.kind->reduces && !mpi_can_reduce(*call.dtype);
    const std::string fix = dtype ? "--dtype float32 (or another type MPI reduces) replaces the calls' own dtype, or run "
                                    "with --engine nccl"
                                  : "--op sum replaces the reducing calls' own op, or run with --engine nccl";
    throw UsageError(reason + " (" + std::string(call.kind->name) + " " + format_bytes(call.bytes) + " " +
                         std::string(call.dtype->name) + ")",
                     fix, from != listed.end() ? from->where : places.sizes);
  }
}

void check_engine_runs(const RunSpec& spec, const std::vector<ListedCall>& listed, EngineKind engine,
                       const EngineCheckPlaces& places) {
  // A workload's or a calls block's calls are what runs; the grid only without them.
  if (spec.calls.empty()) {
    check_engine_support(spec, engine, places);
  } else {
    check_engine_support(spec.calls, listed, engine, places);
  }
}

namespace {

// Out of place is the larger of the two placements: it has both buffers.
CallSizes out_of_place_sizes(const PlannedCall& planned, int ranks) {
  CollectiveCall call = planned.call;
  call.placement = Placement::out_of_place;
  return call_sizes(call, planned.split.ranks_in(ranks));
}

Bytes rank_buffers(const PlannedCall& planned, int ranks) {
  const CallSizes sizes = out_of_place_sizes(planned, ranks);
  const BufferSpan span = buffer_span(sizes.send_bytes(), sizes.recv_bytes(), planned.call.footprint_bytes);
  return span.send_bytes + span.recv_bytes;
}

// A fixed footprint larger than the call's own buffers: the footprint, not the size, asks
// for the memory.
bool footprint_sets_span(const PlannedCall& planned, int ranks) {
  if (planned.footprint.mode != FootprintMode::fixed) return false;
  const CallSizes sizes = out_of_place_sizes(planned, ranks);
  return planned.footprint.bytes > std::max(sizes.send_bytes(), sizes.recv_bytes());
}

}  // namespace

Bytes largest_rank_buffers(const MeasurementPlan& plan, int ranks) {
  Bytes largest = 0;
  for (const PlannedCall& planned : plan.calls) largest = std::max(largest, rank_buffers(planned, ranks));
  return largest;
}

void check_rank_memory(const MeasurementPlan& plan, int ranks, Bytes memory_bytes, const std::string& memory,
                       const EngineCheckPlaces& places) {
  if (memory_bytes == 0) return;
  const PlannedCall* largest = nullptr;
  Bytes needed = 0;
  for (const PlannedCall& planned : plan.calls) {
    if (const Bytes bytes = rank_buffers(planned, ranks); largest == nullptr || bytes > needed) {
      largest = &planned;
      needed = bytes;
    }
  }
  if (largest == nullptr || needed <= memory_bytes) return;
  if (footprint_sets_span(*largest, ranks)) {
    throw UsageError("a rank's buffers would span " + format_bytes(needed) + " (send and receive, each the buffer footprint " +
                         format_bytes(largest->footprint.bytes) + "), more than " + memory,
                     "give a smaller buffer footprint, or largest or exact, or run fewer ranks per host", places.footprint);
  }
  Bytes largest_size = 0;
  for (const PlannedCall& planned : plan.calls) largest_size = std::max(largest_size, planned.total_bytes);
  throw UsageError("a rank's buffers would span " + format_bytes(needed) + " (send and receive, at the largest size " +
                       format_bytes(largest_size) + "), more than " + memory,
                   "measure smaller sizes, use buffer_footprint: exact, or run fewer ranks per host", places.sizes);
}

}  // namespace ncclsweep
