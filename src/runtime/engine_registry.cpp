#include "runtime/engine_registry.hpp"

#include <string>

#include "core/errors.hpp"
#include "core/run_options.hpp"
#include "engine/mpi/mpi_engine.hpp"
#include "runtime/mpi_session.hpp"
#if NCCLSWEEP_HAVE_NCCL
#include "engine/nccl/nccl_engine.hpp"
#endif

namespace ncclsweep {

std::vector<std::string_view> available_engines() {
#if NCCLSWEEP_HAVE_NCCL
  return {name_of(EngineKind::nccl), name_of(EngineKind::mpi)};
#else
  return {name_of(EngineKind::mpi)};
#endif
}

void check_engine(std::string_view name) {
  for (const auto engine : available_engines()) {
    if (engine == name) return;
  }
  // Known but not built here, or not known at all (parse names the engines).
  if (kEngineNames.parse(name) == EngineKind::nccl) {
    throw UsageError("this ncclsweep was built without CUDA or NCCL, so it has no nccl engine",
                     "use --engine mpi, or rebuild where CUDA and NCCL are installed (see README.md)");
  }
  throw UsageError("the " + std::string(name) + " engine is not in this build", "use one of " + kEngineNames.joined());
}

std::unique_ptr<Engine> make_in_process_engine(std::string_view name, MpiSession& session) {
  check_engine(name);  // refuses an engine this build lacks, with the fix
#if NCCLSWEEP_HAVE_NCCL
  if (kEngineNames.parse(name) == EngineKind::nccl) return make_nccl_engine(session);
#endif
  return make_mpi_engine(session.world());
}

}  // namespace ncclsweep
