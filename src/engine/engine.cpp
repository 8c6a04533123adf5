#include "engine/engine.hpp"

#include <cstring>

#include "core/errors.hpp"

namespace ncclsweep {

void Engine::split(const std::vector<int>& colors) {
  if (colors.empty()) return;
  throw UsageError("the " + std::string(name()) + " engine cannot run collectives on sub-communicator groups",
                   "drop groups, or use the nccl or mpi engine");
}

void Engine::slow_down(double factor) {
  if (factor == 1) return;
  throw UsageError("the " + std::string(name()) + " engine has no slow-down testing aid",
                   "use --inject-fault ...:slow=F with --engine mpi");
}

bool mpi_can_reduce(const DataType& dtype) {
  switch (dtype.nccl_id) {
    case kNcclInt8: case kNcclUint8: case kNcclInt32: case kNcclUint32:
    case kNcclInt64: case kNcclUint64: case kNcclFloat32: case kNcclFloat64:
      return true;
    default:
      return false;
  }
}

std::string mpi_engine_unsupported_reason(const CollectiveKind& kind, const DataType& dtype, ReduceOp op,
                                          BufferMode buffers, LaunchMode launch) {
  if (buffers != BufferMode::cuda_malloc || launch != LaunchMode::stream) {
    return "the mpi engine has host buffers and blocking calls only; buffer modes and launch modes other than "
           "cuda-malloc and stream need --engine nccl";
  }
  if (!kind.reduces) return {};
  if (!mpi_can_reduce(dtype)) {
    return "the mpi engine cannot reduce " + std::string(dtype.name) +
           " (MPI has no such type); use int8..uint64, float32 or float64, or --engine nccl";
  }
  if (op == ReduceOp::avg) return "the mpi engine has no avg op (MPI lacks one); use sum";
  return {};
}

std::string Engine::compute_unsupported_reason(const ComputeLoad&) const {
  return "the " + std::string(name()) + " engine cannot run compute beside its collectives";
}

double Engine::time_compute(const ComputeLoad& load, int) {
  throw UsageError(compute_unsupported_reason(load), "drop --with-compute, or use the nccl or mpi engine");
}

OverlapTimes Engine::run_under_compute(const CollectiveCall&, const ComputeLoad& load, int, int) {
  throw UsageError(compute_unsupported_reason(load), "drop --with-compute, or use the nccl or mpi engine");
}

}  // namespace ncclsweep
