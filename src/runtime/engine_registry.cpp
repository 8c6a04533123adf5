#include "runtime/engine_registry.hpp"

#include <string>

#include "core/errors.hpp"
#include "engine/mpi/mpi_engine.hpp"
#include "runtime/mpi_session.hpp"
#if NCCLSWEEP_HAVE_NCCL
#include "engine/nccl/nccl_engine.hpp"
#endif

namespace ncclsweep {

std::vector<std::string_view> available_engines() {
#if NCCLSWEEP_HAVE_NCCL
  return {"nccl", "mpi"};
#else
  return {"mpi"};
#endif
}

std::unique_ptr<Engine> make_engine(std::string_view name, MpiSession& session) {
  if (name == "mpi") return make_mpi_engine(session.world());
#if NCCLSWEEP_HAVE_NCCL
  if (name == "nccl") return make_nccl_engine(session);
#else
  if (name == "nccl") {
    throw UsageError("this ncclsweep was built without CUDA or NCCL, so it has no nccl engine",
                     "use --engine mpi, or rebuild where CUDA and NCCL are installed (see README.md)");
  }
#endif
  throw UsageError("unknown engine '" + std::string(name) + "'", "use --engine nccl or --engine mpi");
}

}  // namespace ncclsweep
