#include "plan/engine_support.hpp"

#include "engine/engine.hpp"

namespace ncclsweep {

EngineCheckPlaces places_of(const Sweep& sweep, bool given_dtype, bool given_op, bool given_engine) {
  EngineCheckPlaces places;
  if (!given_dtype && sweep.dtypes_where.line > 0) places.dtypes = sweep.dtypes_where;
  if (!given_op && sweep.ops_where.line > 0) places.ops = sweep.ops_where;
  if (!given_engine && sweep.engine_where.line > 0) places.engine = sweep.engine_where;
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

}  // namespace ncclsweep
