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

}  // namespace ncclsweep
