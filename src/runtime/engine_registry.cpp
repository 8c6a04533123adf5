#include "runtime/engine_registry.hpp"

#include <string>

#include "core/errors.hpp"
#include "spec/suggest.hpp"

namespace ncclsweep {

std::vector<std::string_view> available_engines() {
#if NCCLSWEEP_HAVE_NCCL
  return {"nccl", "mpi"};
#else
  return {"mpi"};
#endif
}

void check_engine(std::string_view name) {
  for (const auto engine : available_engines()) {
    if (engine == name) return;
  }
  if (name == "nccl") {
    throw UsageError("this ncclsweep was built without CUDA or NCCL, so it has no nccl engine",
                     "use --engine mpi, or rebuild where CUDA and NCCL are installed (see README.md)");
  }
  throw UsageError("unknown engine '" + std::string(name) + "'" + did_you_mean(name, {"nccl", "mpi"}),
                   "use --engine nccl or --engine mpi");
}

}  // namespace ncclsweep
