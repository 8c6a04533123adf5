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
